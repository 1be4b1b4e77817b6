#include "common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "common/output_path.h"

namespace aorta {
namespace {

Error io_error(const std::filesystem::path& path, const std::string& what, int err) {
  return Error{ErrorCode::kIo, "could not " + what + ": " + std::strerror(err), path.string()};
}

// 0, or the errno of the failed write.
int write_all(int fd, std::string_view content) {
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    done += static_cast<size_t>(n);
  }
  return 0;
}

// The temporary file, the checks and the rename; write_content fills the open file and
// says how that went (kIo with the errno's text for a failed write).
using ContentWriter = std::function<Status(int fd)>;
Status write_atomically(const std::filesystem::path& path, const ContentWriter& write_content) {
  static std::atomic<unsigned> counter{0};
  if (!path.has_filename()) return Error{ErrorCode::kInvalidInput, "names a folder, not a file", path.string()};
  // The folder is walked and held from here on, and the file is made and renamed
  // relative to it: a link or folder swapped in on the way since any earlier check
  // is refused or cannot be written through.
  auto folder = open_output_folder(path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path(), false);
  if (!folder) {
    const Error& e = folder.error();
    return Error{e.code, "cannot write into " + e.describe(), path.string()};
  }
  const std::string name = path.filename().string();
  if (Status target = check_output_target(*folder, name, path); !target) return target;
  const std::string tmp = name + ".tmp." + std::to_string(getpid()) + "." + std::to_string(counter++);
  // O_EXCL and O_NOFOLLOW: never write through a file or link someone else placed at that name.
  int fd = ::openat(folder->fd(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return io_error(path, "create " + tmp, errno);
  auto discard = [&](const std::string& what, int err) {
    ::unlinkat(folder->fd(), tmp.c_str(), 0);
    return io_error(path, what, err);
  };
  if (Status written = write_content(fd); !written) {
    ::close(fd);
    ::unlinkat(folder->fd(), tmp.c_str(), 0);
    return written;
  }
  // On disk before the rename: after a crash the name holds the old file or the new
  // one, never an empty one.
  if (::fsync(fd) != 0 && errno != EINVAL) {
    int err = errno;
    ::close(fd);
    return discard("write", err);
  }
  // close() is where NFS and some full-disk cases report a failed write.
  if (::close(fd) != 0) return discard("write", errno);
  // Checked again just before: what was put at the name since is refused too.
  if (Status target = check_output_target(*folder, name, path); !target) {
    ::unlinkat(folder->fd(), tmp.c_str(), 0);
    return target;
  }
  if (::renameat(folder->fd(), tmp.c_str(), folder->fd(), name.c_str()) != 0) return discard("replace", errno);
  return ok_status();
}

}  // namespace

Status write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  return write_atomically(path, [&](int fd) -> Status {
    if (int err = write_all(fd, content)) return io_error(path, "write", err);
    return ok_status();
  });
}

Status write_file_atomically(const std::filesystem::path& path, const NextPiece& next) {
  return write_atomically(path, [&](int fd) -> Status {
    for (;;) {
      Result<std::string> piece = next();
      if (!piece) return piece.error();
      if (piece->empty()) return ok_status();
      if (int err = write_all(fd, *piece)) return io_error(path, "write", err);
    }
  });
}

}  // namespace aorta
