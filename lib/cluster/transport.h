// How commands reach a node. This module knows nothing about Aorta: it runs shell
// command lines on hosts and copies files back.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace aorta::cluster {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr, interleaved as written
};

// A command whose stdout is a file's bytes (e.g. `zstd -1 -c -- FILE` on the node).
struct StreamResult {
  int exit_code = -1;
  uint64_t bytes = 0;   // written to the local file
  std::string errors;   // the command's stderr, kept apart (its first kStreamErrorsKept bytes)
};
constexpr size_t kStreamErrorsKept = 64 * 1024;
// What run() keeps of a command's output: far more than any listing or log tail the
// suite asks for. A node that prints without end is stopped there, with an error,
// instead of taking this machine's memory.
constexpr size_t kCommandOutputLimit = size_t{64} << 20;
// A copy with no byte limit (the caller checks nothing against a listed size).
constexpr uint64_t kNoByteLimit = UINT64_MAX;

// The error a copy gets when the node sends more than the bytes it may take.
Error copy_over_limit(const std::string& host, const std::filesystem::path& local_path, uint64_t max_bytes);
// The error run() gets when a command prints more than kCommandOutputLimit.
Error output_over_limit(const std::string& host);

// One copy in a batch: `command`'s stdout into `local_path`, or, with an empty
// command, `remote_path` downloaded as it is (the plain path). A copy that passes
// max_bytes is stopped there (checked as the bytes arrive, not after): a lying
// node cannot fill this machine's disk.
struct CopyJob {
  std::string host;
  std::string command;
  std::string remote_path;
  std::filesystem::path local_path;
  uint64_t max_bytes = kNoByteLimit;
};

// One file placed on a node: `local_path` here written to `remote_path` there, created
// with mode 0600 or truncated (the caller makes the folders and sets the mode after).
struct UploadJob {
  std::string host;
  std::filesystem::path local_path;
  std::string remote_path;
};

// Called as each job of a batch ends (index into the jobs), from whichever thread
// ran the job: calls may overlap (other hosts, other streams of the same host), so
// the callee locks what it shares. A plain download reports exit 0 and the file's
// size. False skips the host's jobs not yet started (each then an error saying so).
using CopyDone = std::function<bool(size_t, const Result<StreamResult>&)>;

class Transport {
 public:
  virtual ~Transport() = default;
  // Runs `command` with bash on `host`; kTimeout after `timeout`, with the command's
  // process group killed; an error past kCommandOutputLimit bytes of output.
  virtual Result<CommandResult> run(const std::string& host, const std::string& command,
                                    std::chrono::seconds timeout) = 0;
  // Copies a regular file from `host` to `local_path` (parent directories must exist);
  // stopped with copy_over_limit past max_bytes.
  virtual Status download(const std::string& host, const std::string& remote_path,
                          const std::filesystem::path& local_path, uint64_t max_bytes) = 0;
  // Runs `command` with bash on `host`, its stdout written to `local_path` (created
  // or truncated) and its stderr kept apart (the first kStreamErrorsKept bytes);
  // kTimeout after `timeout`; stopped with copy_over_limit past max_bytes of stdout.
  // The default (a transport that cannot stream) answers kUnsupported.
  virtual Result<StreamResult> stream(const std::string& host, const std::string& command,
                                      const std::filesystem::path& local_path, std::chrono::seconds timeout,
                                      uint64_t max_bytes);
  // Every job, the hosts at once: each host's jobs started in the given order, up to
  // `streams_per_host` of them at a time, and at most hosts_at_once x streams_per_host
  // streams in all (CopyQueue): hosts_at_once hosts when each has that many files,
  // more hosts when they have fewer. The default runs a thread per host and one stream per host (see
  // transport.cc); SSH runs coroutines, each stream on a connection of its own.
  // `timeout` applies to each job.
  virtual std::vector<Result<StreamResult>> copy_batch(const std::vector<CopyJob>& jobs, size_t hosts_at_once,
                                                       size_t streams_per_host, std::chrono::seconds timeout,
                                                       const CopyDone& done = {});
  // Every job, up to hosts_at_once hosts at a time, each host's files one after the
  // other; one status per job, a host's later files skipped after one fails. `timeout`
  // applies to each file. The default (a transport that cannot write files to a node)
  // answers kUnsupported.
  virtual std::vector<Status> upload_batch(const std::vector<UploadJob>& jobs, size_t hosts_at_once,
                                           std::chrono::seconds timeout);
  // commands[i] on hosts[i], all at once. The default runs each on its own thread;
  // transports that can do better (SSH: one thread for every node) override it.
  virtual std::vector<Result<CommandResult>> run_batch(const std::vector<std::string>& hosts,
                                                       const std::vector<std::string>& commands,
                                                       std::chrono::seconds timeout);
  // What the node runs if this run is lost before its teardown (rank 0 killed): stop
  // the run's training, remove its container, release its lock. Replaces the host's
  // earlier will. Only agents can keep a will (they outlive a killed rank 0); the
  // others have no one on the node to run it, so this does nothing.
  virtual Status set_last_will(const std::string& host, const std::string& command);
  // Whether `error`, from a command on a host, proves the host's end gone for good, so
  // that polling it again is pointless. None of SSH's does: a refused or silent port is
  // also what an sshd restart or a network blip looks like.
  virtual bool proves_gone(const Error& error) const;
  // What must answer on a node for a command to reach it, as a silent node's message
  // names it: sshd, or the node's agent in a managed run.
  virtual std::string node_answerer() const { return "sshd"; }
  virtual std::string name() const = 0;
};

// How copy_batch hands out its jobs: every host's jobs in a queue, taken in order by
// that host's lanes (up to streams_per_host, never more than its jobs); the lanes
// listed host by host, so the first workers cover the first hosts. After done()
// stopped a host, its jobs not yet taken each end with an error saying so.
class CopyQueue {
 public:
  struct Lane {
    size_t host;    // index into hosts()
    size_t stream;  // 0 .. the host's lanes - 1: which connection it uses
  };
  CopyQueue(const std::vector<CopyJob>& jobs, size_t streams_per_host);
  const std::vector<Lane>& lanes() const { return lanes_; }
  const std::string& host(size_t h) const { return hosts_[h].name; }
  // The next lane not yet taken by a worker (index into lanes()), or none.
  std::optional<size_t> next_lane();
  // The host's next job, or none when it has none left or was stopped.
  std::optional<size_t> next(size_t h);
  // Whether next(h) would give a job now.
  bool has_next(size_t h);
  void stop(size_t h, std::vector<Result<StreamResult>>& results);

 private:
  struct Host {
    std::string name;
    std::vector<size_t> jobs;
    size_t taken = 0;
  };
  std::mutex mutex_;
  std::vector<Host> hosts_;
  std::vector<Lane> lanes_;
  size_t lanes_taken_ = 0;
};

// One job of a batch: stream() for a command, download() for a plain copy.
Result<StreamResult> copy_one(Transport& transport, const CopyJob& job, std::chrono::seconds timeout);
// A plain download's result as a stream's: the size of what arrived.
Result<StreamResult> downloaded(const Status& download, const std::filesystem::path& local_path);

struct HostResult {
  std::string host;
  Result<CommandResult> result;
};

// One command per host (commands[i] on hosts[i]), all hosts at once.
std::vector<HostResult> run_on_hosts(Transport& transport, const std::vector<std::string>& hosts,
                                     const std::vector<std::string>& commands, std::chrono::seconds timeout);

// The same command on every host.
std::vector<HostResult> run_everywhere(Transport& transport, const std::vector<std::string>& hosts,
                                       const std::string& command, std::chrono::seconds timeout);

// Hosts whose command did not run or exited non-zero, each with the tail of its output.
std::string describe_failures(const std::vector<HostResult>& results, size_t tail = 2000);
bool all_succeeded(const std::vector<HostResult>& results);

}  // namespace aorta::cluster
