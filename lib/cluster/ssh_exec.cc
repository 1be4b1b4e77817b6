// SshConnection's commands: a channel per command, its stdout and stderr read in
// order of arrival into memory (exec) or a file (exec_to_file), its exit status.
#include <libssh2.h>
#include <signal.h>

#include <algorithm>
#include <fstream>
#include <optional>

#include "cluster/ssh_connection.h"
#include "cluster/ssh_retry.h"

namespace aorta::cluster {
namespace asio = boost::asio;
using asio::awaitable;

namespace {
int signal_number(const std::string& name) {
  for (auto [n, s] : {std::pair{"TERM", SIGTERM}, {"KILL", SIGKILL}, {"INT", SIGINT}, {"HUP", SIGHUP},
                      {"SEGV", SIGSEGV}, {"ABRT", SIGABRT}, {"PIPE", SIGPIPE}, {"BUS", SIGBUS}})
    if (name == n) return s;
  return 0;
}
}  // namespace

awaitable<Result<LIBSSH2_CHANNEL*>> SshConnection::start(const std::string& command, unsigned window,
                                                        Deadline deadline, const std::string& timed_out) {
  if (!session_)
    if (Status s = co_await connect(); !s) co_return s.error();
  auto channel = co_await retry([&] { return libssh2_channel_open_ex(session_, "session", sizeof "session" - 1, window,
                                                                     LIBSSH2_CHANNEL_PACKET_DEFAULT, nullptr, 0); },
                                deadline);
  if (!channel) co_return fail(ErrorCode::kTimeout, timed_out);
  if (!*channel) co_return fail(ErrorCode::kIo, "cannot open an SSH channel: " + last_error());
  LIBSSH2_CHANNEL* ch = *channel;
  auto started = co_await retry([&] { return libssh2_channel_process_startup(ch, "exec", 4, command.data(), static_cast<unsigned>(command.size())); }, deadline);
  if (!started) co_return fail(ErrorCode::kTimeout, timed_out);
  if (*started != 0) co_return fail(ErrorCode::kIo, "cannot start the command: " + last_error());
  co_return ch;
}

awaitable<Result<int>> SshConnection::finish(LIBSSH2_CHANNEL* ch, Deadline deadline, const std::string& timed_out) {
  auto closed = co_await retry([&] { return libssh2_channel_close(ch); }, deadline);
  auto waited = co_await retry([&] { return libssh2_channel_wait_closed(ch); }, deadline);
  if (!closed || !waited) co_return fail(ErrorCode::kTimeout, timed_out);
  int exit_code = libssh2_channel_get_exit_status(ch);
  char* signal_name = nullptr;
  libssh2_channel_get_exit_signal(ch, &signal_name, nullptr, nullptr, nullptr, nullptr, nullptr);
  if (signal_name) {
    exit_code = 128 + signal_number(signal_name);  // as a shell reports a signalled child
    libssh2_free(session_, signal_name);
  }
  auto freed = co_await retry([&] { return libssh2_channel_free(ch); }, deadline);
  if (!freed) co_return fail(ErrorCode::kTimeout, timed_out);
  co_return exit_code;
}

awaitable<Status> SshConnection::drain(LIBSSH2_CHANNEL* ch, std::vector<char>& buffer, const Sink& out, const Sink& err,
                                       Deadline deadline, const std::string& timed_out) {
  for (;;) {
    ssize_t got = libssh2_channel_read(ch, buffer.data(), buffer.size());
    if (got > 0 && !out(buffer.data(), static_cast<size_t>(got))) co_return fail(ErrorCode::kIo, "stopped");
    ssize_t said = libssh2_channel_read_stderr(ch, buffer.data(), std::min<size_t>(buffer.size(), 32768));
    if (said > 0 && !err(buffer.data(), static_cast<size_t>(said))) co_return fail(ErrorCode::kIo, "stopped");
    if (got > 0 || said > 0) continue;
    for (ssize_t rc : {got, said})
      if (rc < 0 && rc != LIBSSH2_ERROR_EAGAIN)
        co_return fail(ErrorCode::kIo, "reading the command's output failed: " + last_error());
    if (libssh2_channel_eof(ch)) co_return ok_status();
    if (!co_await wait_socket(deadline)) co_return fail(ErrorCode::kTimeout, timed_out);
  }
}

awaitable<Result<CommandResult>> SshConnection::exec(const std::string& command, Deadline deadline) {
  const std::string timed_out = "command did not finish in time; the connection was dropped";
  auto channel = co_await start(command, LIBSSH2_CHANNEL_WINDOW_DEFAULT, deadline, timed_out);
  if (!channel) co_return channel.error();
  CommandResult result;
  std::vector<char> buffer(32768);
  bool over = false;
  auto both = [&](const char* bytes, size_t size) {
    over = result.output.size() + size > kCommandOutputLimit;
    if (!over) result.output.append(bytes, size);
    return !over;
  };
  if (Status s = co_await drain(*channel, buffer, both, both, deadline, timed_out); !s)
    co_return over ? output_over_limit(host_) : s.error();
  auto exit_code = co_await finish(*channel, deadline, timed_out);
  if (!exit_code) co_return exit_code.error();
  result.exit_code = *exit_code;
  co_return result;
}

awaitable<Result<StreamResult>> SshConnection::exec_to_file(const std::string& command,
                                                           const std::filesystem::path& local_path, Deadline deadline,
                                                           uint64_t max_bytes) {
  const std::string timed_out = "streaming into " + local_path.string() + " did not finish in time; the connection was dropped";
  std::ofstream file(local_path, std::ios::binary | std::ios::trunc);
  if (!file) co_return Error{ErrorCode::kIo, "cannot write " + local_path.string(), host_};
  // libssh2's default window (2 MiB) is one round trip's worth at 200 MB/s and 10 ms:
  // 32 MiB lets the node send on while this side writes.
  auto channel = co_await start(command, 32u << 20, deadline, timed_out);
  if (!channel) co_return channel.error();
  StreamResult result;
  std::vector<char> buffer(1 << 20);
  bool over = false;
  auto out = [&](const char* bytes, size_t size) {
    over = size > max_bytes - result.bytes;
    if (over) return false;
    file.write(bytes, static_cast<std::streamsize>(size));
    result.bytes += size;
    return true;
  };
  auto err = [&](const char* bytes, size_t size) {
    result.errors.append(bytes, std::min(size, kStreamErrorsKept - result.errors.size()));
    return true;
  };
  if (Status s = co_await drain(*channel, buffer, out, err, deadline, timed_out); !s)
    co_return over ? copy_over_limit(host_, local_path, max_bytes) : s.error();
  auto exit_code = co_await finish(*channel, deadline, timed_out);
  if (!exit_code) co_return exit_code.error();
  result.exit_code = *exit_code;
  file.close();
  if (!file) co_return Error{ErrorCode::kIo, "writing " + local_path.string() + " failed (disk full?)", host_};
  co_return result;
}

}  // namespace aorta::cluster
