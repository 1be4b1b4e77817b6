// posix_spawn with a new process group and pipes (child_process.h).
#include "agent/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

extern char** environ;

namespace aorta::agent {
namespace {

int exit_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

Result<ChildProcess> ChildProcess::start(const std::string& command, bool merge_stderr) {
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  // O_CLOEXEC: no other command the agent starts inherits this one's pipes.
  if (::pipe2(out, O_CLOEXEC) != 0 || (!merge_stderr && ::pipe2(err, O_CLOEXEC) != 0)) {
    const int e = errno;
    for (int fd : {out[0], out[1], err[0], err[1]})
      if (fd >= 0) ::close(fd);
    return Error{ErrorCode::kIo, std::string("cannot make a pipe: ") + std::strerror(e), "agent"};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, merge_stderr ? out[1] : err[1], 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  // A group of its own (id = its pid), and the default SIGPIPE the agent ignores:
  // a command writing to a closed pipe ends as it would in a shell.
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
  std::string script = command;
  char* argv[] = {const_cast<char*>("bash"), const_cast<char*>("-c"), script.data(), nullptr};
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, "bash", &actions, &attr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close_fd(out[1]);
  close_fd(err[1]);
  if (rc != 0) {
    close_fd(out[0]);
    close_fd(err[0]);
    return Error{ErrorCode::kCommandFailed, std::string("cannot start bash: ") + std::strerror(rc), "agent"};
  }
  return ChildProcess(pid, out[0], err[0]);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      out_fd_(std::exchange(other.out_fd_, -1)),
      err_fd_(std::exchange(other.err_fd_, -1)),
      status_(other.status_) {}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !status_) kill_and_reap();
  close_fd(out_fd_);
  close_fd(err_fd_);
}

void ChildProcess::kill_group() {
  // While the leader is unreaped its pid, and so the group id, cannot be reused.
  if (pid_ > 0 && !status_) ::kill(-pid_, SIGKILL);
}

void ChildProcess::end_group() {
  if (pid_ > 0) ::kill(-pid_, SIGKILL);
}

std::optional<int> ChildProcess::poll_exit() {
  if (status_ || pid_ <= 0) return status_;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) status_ = exit_status(status);
  return status_;
}

int ChildProcess::kill_and_reap() {
  if (pid_ <= 0) return -1;
  kill_group();
  int status = 0;
  while (!status_) {
    if (::waitpid(pid_, &status, 0) == pid_) status_ = exit_status(status);
    else if (errno != EINTR) status_ = -1;
  }
  return *status_;
}

}  // namespace aorta::agent
