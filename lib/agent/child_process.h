// A command the agent runs: `bash -c` in a process group of its own, stdin from
// /dev/null, stdout (and stderr, or a pipe of its own) read through pipes, so the
// whole group can be killed at once.
#pragma once

#include <sys/types.h>

#include <optional>
#include <utility>
#include <string>

#include "common/result.h"

namespace aorta::agent {

class ChildProcess {
 public:
  // merge_stderr: stderr goes into the stdout pipe, interleaved as written.
  static Result<ChildProcess> start(const std::string& command, bool merge_stderr);
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&&) = delete;
  ~ChildProcess();  // kills the group and reaps it if it still runs

  pid_t pid() const { return pid_; }  // also the group's id
  // The pipes' read ends; the caller takes them (-1 afterwards).
  int take_stdout() { return std::exchange(out_fd_, -1); }
  int take_stderr() { return std::exchange(err_fd_, -1); }
  // SIGKILL to the whole group, unless it was reaped already (its id may be reused).
  void kill_group();
  // SIGKILL to the group even after its leader was reaped, for a command whose output
  // is still open (`cmd & echo started`): a group id is not reused while the group
  // has a member, and the open output says one may.
  void end_group();
  // The exit status once the leader has ended (WNOHANG), else none: 128+signal for
  // a signal, as a shell reports it.
  std::optional<int> poll_exit();
  // Kills the group and waits for the leader.
  int kill_and_reap();

 private:
  ChildProcess(pid_t pid, int out_fd, int err_fd) : pid_(pid), out_fd_(out_fd), err_fd_(err_fd) {}
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::optional<int> status_;
};

}  // namespace aorta::agent
