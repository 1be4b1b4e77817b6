// Commands on cluster nodes over SSH: one libssh2 connection per node, opened on
// first use and kept for every later stage. Every node is a coroutine on one Asio
// io_context, run by a few threads (one per core): no thread per node.
#pragma once

#include <atomic>
#include <exception>
#include <functional>
#include <map>
#include <utility>
#include <memory>
#include <mutex>

#include <boost/asio/io_context.hpp>

#include "cluster/ssh_connection.h"
#include "cluster/ssh_jump.h"
#include "cluster/transport.h"

namespace aorta::cluster {

// The remote command line: stderr into stdout, and coreutils timeout around the
// command, which on expiry signals its whole process group (TERM, then KILL after
// 10 s), so nothing the command started outlives it on the node.
std::string ssh_remote_command(const std::string& command, std::chrono::seconds timeout);

// The same for a stream: stderr stays apart from stdout (the file's bytes).
std::string ssh_stream_command(const std::string& command, std::chrono::seconds timeout);

// A command or stream that the node's `timeout` ended (exit 124 or 137 once the
// limit has passed) becomes a kTimeout error naming the host.
template <class R>
Result<R> remote_timeout_as_error(Result<R> result, std::chrono::steady_clock::duration took,
                                  std::chrono::seconds timeout, const std::string& host) {
  // 124/137: coreutils timeout ended it (TERM, then KILL).
  if (result && (result->exit_code == 124 || result->exit_code == 137) && took >= timeout)
    return Error{ErrorCode::kTimeout,
                 "command did not finish within " + std::to_string(timeout.count()) +
                     "s; its process group was terminated",
                 host};
  return result;
}

class SshTransport final : public Transport {
 public:
  // Checks the key files first (exist, not readable by others) and finds their
  // passphrases (SshOptions::key_passphrase_env, or the terminal), so that nothing
  // about the keys fails after a node has been contacted.
  static Result<std::unique_ptr<SshTransport>> create(SshOptions options);
  ~SshTransport() override;

  Result<CommandResult> run(const std::string& host, const std::string& command,
                            std::chrono::seconds timeout) override;
  std::vector<Result<CommandResult>> run_batch(const std::vector<std::string>& hosts,
                                               const std::vector<std::string>& commands,
                                               std::chrono::seconds timeout) override;
  Status download(const std::string& host, const std::string& remote_path, const std::filesystem::path& local_path,
                  uint64_t max_bytes) override;
  Result<StreamResult> stream(const std::string& host, const std::string& command,
                              const std::filesystem::path& local_path, std::chrono::seconds timeout,
                              uint64_t max_bytes) override;
  // One coroutine per lane in flight (CopyQueue), each on a connection of its own:
  // a host's first stream uses the connection every command uses, further streams
  // open more connections to it, closed when their lane is done.
  std::vector<Result<StreamResult>> copy_batch(const std::vector<CopyJob>& jobs, size_t hosts_at_once,
                                               size_t streams_per_host, std::chrono::seconds timeout,
                                               const CopyDone& done) override;
  // SFTP on each host's own connection; a host's files one after the other.
  std::vector<Status> upload_batch(const std::vector<UploadJob>& jobs, size_t hosts_at_once,
                                   std::chrono::seconds timeout) override;
  std::string name() const override { return "ssh"; }

 private:
  explicit SshTransport(SshOptions options);
  // Stream 0 is the host's connection for every command; others serve one copy_batch.
  SshConnection& connection(const std::string& host, size_t stream = 0);
  // Runs `work` on its own strand; drive() returns when all such work is done.
  void spawn(std::function<boost::asio::awaitable<void>()> work);
  // Runs the spawned coroutines to completion on up to one thread per core.
  void drive(size_t coroutines);

  std::mutex mutex_;  // one caller drives the io_context at a time
  SshOptions options_;
  boost::asio::io_context io_;
  std::atomic<size_t> running_{0};  // spawned work not yet finished
  std::mutex failure_mutex_;
  std::exception_ptr failure_;      // a broken invariant in spawned work, rethrown by drive()
  std::unique_ptr<SshJump> jump_;   // the bastion; outlives the connections tunnelled through it
  std::map<std::pair<std::string, size_t>, std::unique_ptr<SshConnection>> connections_;  // (host, stream)
};

}  // namespace aorta::cluster
