#include "common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

namespace aorta {
namespace {

Error io_error(const std::filesystem::path& path, const std::string& what, int err) {
  return Error{ErrorCode::kIo, "could not " + what + ": " + std::strerror(err), path.string()};
}

}  // namespace

Status write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  static std::atomic<unsigned> counter{0};
  std::filesystem::path tmp = path;
  tmp += ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  // O_EXCL: never write through a file or link someone else placed at that name.
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return io_error(path, "create " + tmp.filename().string(), errno);
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return io_error(path, "write", err);
    }
    done += static_cast<size_t>(n);
  }
  // On disk before the rename: after a crash the name holds the old file or the new
  // one, never an empty one.
  if (::fsync(fd) != 0 && errno != EINVAL) {
    int err = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    return io_error(path, "write", err);
  }
  // close() is where NFS and some full-disk cases report a failed write.
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return io_error(path, "write", err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return io_error(path, "replace", err);
  }
  return ok_status();
}

}  // namespace aorta
