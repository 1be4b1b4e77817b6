// run, stream and download on the agent (agent_commands.h).
#include "agent/agent_commands.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "agent/frame_io.h"
#include "cluster/transport.h"

namespace aorta::agent {
namespace asio = boost::asio;
using asio::awaitable;
using asio::ip::tcp;
using namespace asio::experimental::awaitable_operators;
namespace fs = std::filesystem;

namespace {
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

// A command in flight: its process, and whether its deadline killed it. Shared with
// the deadline's handler, which may run after the command's coroutine is gone.
struct Command {
  explicit Command(ChildProcess p) : process(std::move(p)) {}
  ChildProcess process;
  bool timed_out = false;
};

// stdout to the socket, one data frame per read: the pipe is read again only once
// the frame is written, so a slow client slows the command (back-pressure) and the
// agent holds one buffer. True at the pipe's end; false when the client is gone.
awaitable<bool> pump(asio::posix::stream_descriptor& pipe, tcp::socket& socket) {
  std::vector<char> buffer(kMaxDataFrame);
  for (;;) {
    auto [ec, n] = co_await pipe.async_read_some(asio::buffer(buffer), kTuple);
    if (n > 0 && !co_await write_frame(socket, FrameType::kData, {buffer.data(), n})) co_return false;
    if (ec) co_return true;
  }
}

// stderr: the first kStreamErrorsKept bytes kept, the rest read and dropped.
awaitable<void> drain(asio::posix::stream_descriptor* pipe, std::string& kept) {
  if (!pipe) co_return;
  std::vector<char> buffer(1 << 14);
  for (;;) {
    auto [ec, n] = co_await pipe->async_read_some(asio::buffer(buffer), kTuple);
    kept.append(buffer.data(), std::min(n, cluster::kStreamErrorsKept - kept.size()));
    if (ec) co_return;
  }
}

// Whether the client's close cancelled the command (watch_close won the race).
awaitable<bool> cancelled() {
  auto state = co_await asio::this_coro::cancellation_state;
  co_return state.cancelled() != asio::cancellation_type::none;
}

// The output to its end, then the leader's exit status (polled: a blocking wait would
// stop the agent's one thread). None when the client went away (the group is killed).
awaitable<std::optional<int>> finish(Command& command, asio::posix::stream_descriptor& out,
                                     asio::posix::stream_descriptor* err, tcp::socket& socket, std::string& errors) {
  const bool delivered = co_await (pump(out, socket) && drain(err, errors));
  if (!delivered || co_await cancelled()) {
    command.process.kill_and_reap();
    co_return std::nullopt;
  }
  asio::steady_timer tick(co_await asio::this_coro::executor);
  auto wait = std::chrono::milliseconds(1);
  while (!command.process.poll_exit()) {
    if (co_await cancelled()) co_return std::nullopt;
    tick.expires_after(wait);
    auto [ec] = co_await tick.async_wait(kTuple);
    if (ec) co_return std::nullopt;
    wait = std::min(wait * 2, std::chrono::milliseconds(50));
  }
  co_return command.process.poll_exit();
}

// Ends when the client closes the connection or sends anything mid-command: the
// client never speaks while a command runs, so either way it has given up.
awaitable<void> watch_close(tcp::socket& socket) {
  char byte = 0;
  co_await socket.async_read_some(asio::buffer(&byte, 1), kTuple);
}

Error timed_out(int64_t seconds) {
  return Error{ErrorCode::kTimeout, "command did not finish within " + std::to_string(seconds) + "s", ""};
}

}  // namespace

awaitable<bool> run_command(tcp::socket& socket, const Request& request, bool merge_stderr, RunningSet& running) {
  auto started = ChildProcess::start(request.command, merge_stderr);
  if (!started) co_return co_await write_reply(socket, error_reply(started.error().code, started.error().message));
  auto command = std::make_shared<Command>(std::move(*started));
  running.insert(&command->process);
  struct Unregister {
    RunningSet& set;
    ChildProcess* process;
    ~Unregister() { set.erase(process); }
  } unregister{running, &command->process};
  auto executor = co_await asio::this_coro::executor;
  asio::posix::stream_descriptor out(executor, command->process.take_stdout());
  std::optional<asio::posix::stream_descriptor> err;
  if (!merge_stderr) err.emplace(executor, command->process.take_stderr());
  // The deadline kills the group; the output then ends and the reply says timeout.
  asio::steady_timer deadline(executor, std::chrono::seconds(request.timeout_s));
  deadline.async_wait([weak = std::weak_ptr<Command>(command)](const boost::system::error_code& ec) {
    auto alive = weak.lock();
    if (ec || !alive) return;  // the output is still open here, even when the leader has ended
    alive->timed_out = true;
    alive->process.end_group();
  });
  std::string errors;
  auto outcome = co_await (finish(*command, out, err ? &*err : nullptr, socket, errors) || watch_close(socket));
  deadline.cancel();
  if (outcome.index() == 1 || !std::get<0>(outcome)) {
    command->process.end_group();  // what the leader left running in its group too
    command->process.kill_and_reap();
    co_return false;
  }
  if (command->timed_out) {
    co_return co_await write_reply(socket, error_reply(ErrorCode::kTimeout, timed_out(request.timeout_s).message));
  }
  co_return co_await write_reply(socket, done_reply(*std::get<0>(outcome), 0, errors));
}

bool below_a_root(const fs::path& path, const std::vector<fs::path>& roots) {
  for (const auto& root : roots) {
    std::error_code ec;
    const fs::path real_root = fs::canonical(root, ec);
    if (ec) continue;
    auto [root_end, path_at] = std::mismatch(real_root.begin(), real_root.end(), path.begin(), path.end());
    if (root_end == real_root.end()) return true;
  }
  return false;
}

awaitable<bool> send_file(tcp::socket& socket, const std::string& path, const std::vector<fs::path>& roots) {
  std::error_code ec;
  const fs::path real = fs::canonical(path, ec);
  if (ec) co_return co_await write_reply(socket, error_reply(ErrorCode::kNotFound, "no such file: " + path));
  if (!below_a_root(real, roots))
    co_return co_await write_reply(
        socket, error_reply(ErrorCode::kInvalidInput, "refused: " + path + " (" + real.string() +
                                                          ") is outside the folders this agent may copy from"));
  // Not waiting on open (a FIFO), not following a link swapped in since canonical().
  const int fd = ::open(real.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    co_return co_await write_reply(socket,
                                   error_reply(ErrorCode::kIo, "cannot open " + path + ": " + std::strerror(errno)));
  struct Close {
    int fd;
    ~Close() { ::close(fd); }
  } closer{fd};
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode))
    co_return co_await write_reply(socket, error_reply(ErrorCode::kNotFound, "not a regular file: " + path));
  // What was opened is checked again: a folder of the path swapped for a link between
  // canonical() and open() leads outside, and is caught here.
  const fs::path opened = fs::read_symlink("/proc/self/fd/" + std::to_string(fd), ec);
  if (ec || !below_a_root(opened, roots))
    co_return co_await write_reply(socket, error_reply(ErrorCode::kInvalidInput,
                                                       "refused: " + path + " changed while it was opened"));
  std::vector<char> buffer(kMaxDataFrame);
  uint64_t sent = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      co_return co_await write_reply(socket,
                                     error_reply(ErrorCode::kIo, "reading " + path + " failed: " + std::strerror(errno)));
    if (n == 0) break;
    if (!co_await write_frame(socket, FrameType::kData, {buffer.data(), static_cast<size_t>(n)})) co_return false;
    sent += static_cast<uint64_t>(n);
  }
  co_return co_await write_reply(socket, done_reply(0, sent, ""));
}

}  // namespace aorta::agent
