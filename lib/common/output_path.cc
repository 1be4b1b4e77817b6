#include "common/output_path.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace aorta {
namespace fs = std::filesystem;

FolderHandle& FolderHandle::operator=(FolderHandle&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FolderHandle::~FolderHandle() {
  if (fd_ >= 0) ::close(fd_);
}

std::string file_kind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

namespace {

Error refused(const fs::path& path, const std::string& why) {
  return Error{ErrorCode::kInvalidInput, "refused to write there: " + why, path.string()};
}

bool trusted_owner(uid_t uid) { return uid == 0 || uid == ::geteuid(); }

// Others may add, remove or swap entries in a folder they can write to, unless the
// sticky bit keeps them to their own entries.
bool others_may_swap(const struct stat& st) {
  if (st.st_mode & S_ISVTX) return false;
  return (st.st_mode & S_IWOTH) || ((st.st_mode & S_IWGRP) && st.st_gid != ::getegid());
}

std::string owner_text(const struct stat& st) { return fmt::format("uid {}", st.st_uid); }

}  // namespace

Result<FolderHandle> open_output_folder(const fs::path& folder, bool create) {
  std::error_code ec;
  fs::path wanted = fs::absolute(folder, ec).lexically_normal();
  if (ec) return Error{ErrorCode::kIo, "cannot tell where it is: " + ec.message(), folder.string()};
  for (int links = 0; links < 40; ++links) {
    FolderHandle at(::open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (at.fd() < 0) return Error{ErrorCode::kIo, std::string("cannot open /: ") + std::strerror(errno), "/"};
    fs::path physical = "/";
    std::vector<std::string> rest;
    for (const auto& part : wanted.relative_path()) rest.push_back(part.string());
    bool relinked = false;
    for (size_t k = 0; k < rest.size() && !relinked; ++k) {
      const std::string& name = rest[k];
      if (name.empty() || name == ".") continue;
      struct stat parent{};
      if (::fstat(at.fd(), &parent) != 0) return Error{ErrorCode::kIo, std::strerror(errno), physical.string()};
      fs::path here = physical / name;
      struct stat st{};
      if (::fstatat(at.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno != ENOENT || !create)
          return Error{ErrorCode::kIo, std::string("cannot use it: ") + std::strerror(errno), here.string()};
        if (others_may_swap(parent))
          return refused(here, physical.string() + " is writable by others (" + fmt::format("mode {:o}", parent.st_mode & 07777) +
                                   ") without the sticky bit, so they could swap what is made there");
        if (::mkdirat(at.fd(), name.c_str(), 0755) != 0 && errno != EEXIST)
          return Error{ErrorCode::kIo, std::string("cannot create it: ") + std::strerror(errno), here.string()};
        if (::fstatat(at.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
          return Error{ErrorCode::kIo, std::strerror(errno), here.string()};
      }
      if (S_ISLNK(st.st_mode)) {
        // A link of root's or this user's leads on; one of another user's may have
        // been planted to send the reports elsewhere.
        if (!trusted_owner(st.st_uid))
          return refused(here, "it is a symbolic link owned by " + owner_text(st) + ", neither root nor you");
        if (others_may_swap(parent))
          return refused(here, "it is a symbolic link in " + physical.string() + ", which others may write to");
        std::string target(static_cast<size_t>(st.st_size > 0 ? st.st_size : 4096) + 1, '\0');
        ssize_t n = ::readlinkat(at.fd(), name.c_str(), target.data(), target.size());
        if (n < 0) return Error{ErrorCode::kIo, std::strerror(errno), here.string()};
        target.resize(static_cast<size_t>(n));
        fs::path next = fs::path(target).is_absolute() ? fs::path(target) : physical / target;
        for (size_t j = k + 1; j < rest.size(); ++j) next /= rest[j];
        wanted = next.lexically_normal();
        relinked = true;
        break;
      }
      if (!S_ISDIR(st.st_mode)) return refused(here, "it is " + file_kind(st.st_mode) + ", not a folder");
      // Folders on the way may be anyone's (a project folder of the group's), but
      // one anybody may rename entries in would let them swap the next one.
      if ((parent.st_mode & S_IWOTH) && !(parent.st_mode & S_ISVTX))
        return refused(here, physical.string() + " is writable by everyone without the sticky bit, so " + name +
                                 " could be swapped under the run");
      FolderHandle next(::openat(at.fd(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      struct stat opened{};
      if (next.fd() < 0 || ::fstat(next.fd(), &opened) != 0 || opened.st_ino != st.st_ino || opened.st_dev != st.st_dev)
        return refused(here, "it changed while it was checked");
      at = std::move(next);
      physical = here;
    }
    if (relinked) continue;
    struct stat last{};
    if (::fstat(at.fd(), &last) != 0) return Error{ErrorCode::kIo, std::strerror(errno), physical.string()};
    // The folder the files go into: the run's user's (or root's), and nobody else's to swap.
    if (!trusted_owner(last.st_uid))
      return refused(physical, "the folder belongs to " + owner_text(last) + ", neither root nor you");
    if (others_may_swap(last))
      return refused(physical, fmt::format("the folder is writable by others (mode {:o}) without the sticky bit",
                                           last.st_mode & 07777));
    return at;
  }
  return refused(folder, "too many symbolic links on the way");
}

namespace {

std::mutex inputs_mutex;
std::set<std::pair<dev_t, ino_t>>& inputs() {
  static std::set<std::pair<dev_t, ino_t>> registered;
  return registered;
}

}  // namespace

void register_input(const fs::path& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return;
  std::lock_guard lock(inputs_mutex);
  inputs().emplace(st.st_dev, st.st_ino);
}

Status check_output_target(const FolderHandle& folder, const std::string& name, const fs::path& path) {
  struct stat st{};
  if (::fstatat(folder.fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return ok_status();
    return Error{ErrorCode::kIo, std::string("cannot use it: ") + std::strerror(errno), path.string()};
  }
  if (!S_ISREG(st.st_mode)) return refused(path, "it is " + file_kind(st.st_mode) + ", which an output never replaces");
  std::lock_guard lock(inputs_mutex);
  if (inputs().count({st.st_dev, st.st_ino}))
    return refused(path, "it is one of this run's inputs; give the output another path");
  return ok_status();
}

Result<int> open_output_for_append(const fs::path& path) {
  if (!path.has_filename()) return refused(path, "it names a folder, not a file");
  auto folder = open_output_folder(path.parent_path().empty() ? fs::path(".") : path.parent_path(), true);
  if (!folder) return folder.error();
  const std::string name = path.filename().string();
  if (Status s = check_output_target(*folder, name, path); !s) return s.error();
  // O_NOFOLLOW and O_NONBLOCK: a link or a FIFO put there since the check fails here
  // instead of being written through or blocking.
  int fd = ::openat(folder->fd(), name.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) return Error{ErrorCode::kIo, std::string("cannot open it: ") + std::strerror(errno), path.string()};
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return refused(path, "it is not a regular file");
  }
  ::fcntl(fd, F_SETFL, O_WRONLY | O_APPEND);
  return fd;
}

Status probe_output_file(const fs::path& path) {
  if (!path.has_filename()) return refused(path, "it names a folder, not a file");
  auto folder = open_output_folder(path.parent_path().empty() ? fs::path(".") : path.parent_path(), true);
  if (!folder) return folder.error();
  if (Status s = check_output_target(*folder, path.filename().string(), path); !s) return s.error();
  // A file of our own beside it, made and removed: a read-only or full disk fails here.
  const std::string probe = ".aorta_suite_probe." + std::to_string(::getpid());
  int fd = ::openat(folder->fd(), probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Error{ErrorCode::kIo, std::string("cannot write in its folder: ") + std::strerror(errno), path.string()};
  const bool written = ::write(fd, "probe\n", 6) == 6;
  const int saved = errno;
  ::close(fd);
  ::unlinkat(folder->fd(), probe.c_str(), 0);
  if (!written)
    return Error{ErrorCode::kIo, std::string("cannot write in its folder: ") + std::strerror(saved), path.string()};
  return ok_status();
}

}  // namespace aorta
