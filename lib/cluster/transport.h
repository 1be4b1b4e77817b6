// How commands reach a node. This module knows nothing about Aorta: it runs shell
// command lines on hosts and copies files back.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"

namespace aorta::cluster {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr, interleaved as written
};

class Transport {
 public:
  virtual ~Transport() = default;
  // Runs `command` with bash on `host`; kTimeout after `timeout`, with the command's
  // process group killed.
  virtual Result<CommandResult> run(const std::string& host, const std::string& command,
                                    std::chrono::seconds timeout) = 0;
  // Copies a regular file from `host` to `local_path` (parent directories must exist).
  virtual Status download(const std::string& host, const std::string& remote_path,
                          const std::filesystem::path& local_path) = 0;
  // commands[i] on hosts[i], all at once. The default runs each on its own thread;
  // transports that can do better (SSH: one thread for every node) override it.
  virtual std::vector<Result<CommandResult>> run_batch(const std::vector<std::string>& hosts,
                                                       const std::vector<std::string>& commands,
                                                       std::chrono::seconds timeout);
  virtual std::string name() const = 0;
};

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
