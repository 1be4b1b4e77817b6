#include "cluster/local_transport.h"

#include <fcntl.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/process.hpp>

#include "common/regular_file.h"

namespace aorta::cluster {
namespace bp = boost::process;

namespace {

// Hands a pipe's bytes to `take` as they arrive, to the pipe's end. When take says
// stop (false), the pipe is closed: the writer gets EPIPE and nothing more is read.
// Reading as the bytes come, rather than into one string, is what lets run() and
// stream() bound what a command may print.
class PipeDrain {
 public:
  using Take = std::function<bool(const char* bytes, size_t size)>;
  PipeDrain(bp::async_pipe& pipe, Take take) : pipe_(pipe), take_(std::move(take)) { read(); }

 private:
  void read() {
    pipe_.async_read_some(boost::asio::buffer(buffer_), [this](const boost::system::error_code& ec, size_t n) {
      if (n > 0 && !take_(buffer_.data(), n)) {
        boost::system::error_code ignored;
        pipe_.close(ignored);
        return;
      }
      if (!ec) read();
    });
  }
  bp::async_pipe& pipe_;
  Take take_;
  std::vector<char> buffer_ = std::vector<char>(1 << 16);
};

// Commands run from several threads at once. Boost makes their pipes without
// close-on-exec, so a child started while another command's pipe was open would keep
// that pipe, and a detached job it leaves (a lock holder) would hold it open for hours:
// that command's output would never end. Pipes are made and children started one at
// a time, each pipe close-on-exec (the child's own end is dup2'ed onto its stdout).
std::mutex& spawn_mutex() {
  static std::mutex m;
  return m;
}

void private_pipe(bp::async_pipe& pipe) {
  for (int fd : {pipe.native_source(), pipe.native_sink()}) fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
}

Error timed_out(const std::string& host, std::chrono::seconds timeout) {
  return Error{ErrorCode::kTimeout, "command did not finish within " + std::to_string(timeout.count()) + "s", host};
}

}  // namespace

Result<CommandResult> LocalTransport::run(const std::string& host, const std::string& command,
                                          std::chrono::seconds timeout) {
  try {
    boost::asio::io_context ctx;
    std::unique_lock spawning(spawn_mutex());
    bp::async_pipe out(ctx);
    bp::group group;
    private_pipe(out);
    // exec 2>&1 interleaves stderr with stdout in the order the command wrote them.
    bp::child child(bp::search_path("bash"), "-c", "exec 2>&1\n" + command, bp::std_in < bp::null, bp::std_out > out,
                    group);
    spawning.unlock();
    CommandResult result;
    bool over = false;
    PipeDrain drain(out, [&](const char* bytes, size_t size) {
      if (result.output.size() + size > kCommandOutputLimit) {
        over = true;
        ctx.stop();  // the group is killed below, once
        return false;
      }
      result.output.append(bytes, size);
      return true;
    });
    ctx.run_for(timeout);
    if (!ctx.stopped() || over) {
      group.terminate();  // SIGKILL to the whole group: nothing the command started survives
      child.wait();
      return over ? output_over_limit(host) : timed_out(host, timeout);
    }
    child.wait();
    // ~group() kills the group it still owns; a detached job the command started
    // (nohup setsid ... &) may not have left the group yet, so let go of it.
    group.detach();
    result.exit_code = child.exit_code();
    return result;
  } catch (const std::exception& e) {
    return Error{ErrorCode::kCommandFailed, std::string("could not run command: ") + e.what(), host};
  }
}

Result<StreamResult> LocalTransport::stream(const std::string& host, const std::string& command,
                                            const std::filesystem::path& local_path, std::chrono::seconds timeout,
                                            uint64_t max_bytes) {
  try {
    std::ofstream file(local_path, std::ios::binary | std::ios::trunc);
    if (!file) return Error{ErrorCode::kIo, "cannot write " + local_path.string(), host};
    boost::asio::io_context ctx;
    std::unique_lock spawning(spawn_mutex());
    bp::async_pipe out(ctx), err(ctx);
    bp::group group;
    private_pipe(out);
    private_pipe(err);
    bp::child child(bp::search_path("bash"), "-c", command, bp::std_in < bp::null, bp::std_out > out,
                    bp::std_err > err, group);
    spawning.unlock();
    StreamResult result;
    bool over = false;
    PipeDrain to_file(out, [&](const char* bytes, size_t size) {
      if (size > max_bytes - result.bytes) {
        over = true;
        ctx.stop();  // the group is killed below, once
        return false;
      }
      file.write(bytes, static_cast<std::streamsize>(size));
      result.bytes += size;
      return true;
    });
    // Only the start of stderr is kept; the rest is read and dropped, so a command
    // that writes gigabytes there neither blocks nor fills memory.
    PipeDrain errors(err, [&](const char* bytes, size_t size) {
      result.errors.append(bytes, std::min(size, kStreamErrorsKept - result.errors.size()));
      return true;
    });
    ctx.run_for(timeout);
    if (!ctx.stopped() || over) {
      group.terminate();
      child.wait();
      return over ? copy_over_limit(host, local_path, max_bytes) : timed_out(host, timeout);
    }
    child.wait();
    group.detach();
    result.exit_code = child.exit_code();
    file.close();
    if (!file) return Error{ErrorCode::kIo, "writing " + local_path.string() + " failed (disk full?)", host};
    return result;
  } catch (const std::exception& e) {
    return Error{ErrorCode::kCommandFailed, std::string("could not run command: ") + e.what(), host};
  }
}

Status LocalTransport::download(const std::string& host, const std::string& remote_path,
                                const std::filesystem::path& local_path, uint64_t max_bytes) {
  // Opened without waiting: a FIFO at the path must not hang the copy; it is refused below.
  RegularFileReader in(remote_path, true);
  if (in.open_error() == ENOENT) return Error{ErrorCode::kNotFound, "no such file: " + remote_path, host};
  if (in.open_error() != 0)
    return Error{ErrorCode::kIo, "cannot open " + remote_path + ": " + std::strerror(in.open_error()), host};
  if (in.status() != FileText::Status::kRead)
    return Error{ErrorCode::kNotFound, "not a regular file: " + remote_path, host};
  std::ofstream out(local_path, std::ios::binary | std::ios::trunc);
  if (!out) return Error{ErrorCode::kIo, "cannot write " + local_path.string(), host};
  std::vector<char> buffer(1 << 20);
  uint64_t copied = 0;
  bool over = false;
  const int error = in.read_all(buffer, [&](const char* bytes, size_t size) {
    over = size > max_bytes - copied;
    if (over) return false;
    out.write(bytes, static_cast<std::streamsize>(size));
    copied += size;
    return true;
  });
  if (error != 0) return Error{ErrorCode::kIo, "copy of " + remote_path + " failed: " + std::strerror(error), host};
  if (over) return copy_over_limit(host, local_path, max_bytes);
  out.close();
  if (!out) return Error{ErrorCode::kIo, "writing " + local_path.string() + " failed (disk full?)", host};
  return ok_status();
}

}  // namespace aorta::cluster
