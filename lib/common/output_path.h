// Where a run may write (issue 29). Every output goes into a folder reached one
// component at a time from /, so that a link or folder another user planted on the
// way is refused at the moment of writing, not only when a path was first checked;
// the file is then made and renamed relative to that folder's handle. A path that
// names a link, a device, a FIFO or a socket, or one of the run's own inputs, is
// never replaced.
#pragma once

#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "common/result.h"

namespace aorta {

// An open folder handle (O_PATH), closed with the object.
class FolderHandle {
 public:
  explicit FolderHandle(int fd = -1) : fd_(fd) {}
  FolderHandle(FolderHandle&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FolderHandle& operator=(FolderHandle&& other) noexcept;
  FolderHandle(const FolderHandle&) = delete;
  FolderHandle& operator=(const FolderHandle&) = delete;
  ~FolderHandle();
  int fd() const { return fd_; }

 private:
  int fd_;
};

// Opens `folder` for writing outputs into, walking it from / without following a link
// unless the link belongs to root or to this user (and sits where others cannot swap
// it). No folder on the way may be writable by everyone without the sticky bit (/tmp
// has it); the folder itself must belong to root or to this user and not be writable
// by others (or by a group that is not this user's) unless it has the sticky bit. With
// `create`, missing folders are made (0755 less the umask). A refusal names the folder
// and what is wrong with it.
Result<FolderHandle> open_output_folder(const std::filesystem::path& folder, bool create);

// "a symbolic link", "a FIFO", "a character device", ... for a refusal's message.
std::string file_kind(mode_t mode);

// The run's own inputs (config, cluster file, thresholds, a baseline, traces given to
// analyze): outputs never replace them. Files that do not exist are ignored.
void register_input(const std::filesystem::path& path);

// Refuses to write at `name` in `folder`: something there that is not a regular file,
// or one of the run's inputs. `path` is for the message.
Status check_output_target(const FolderHandle& folder, const std::string& name, const std::filesystem::path& path);

// Opens `path` for appending (created 0644 less the umask), as open_output_folder and
// check_output_target allow. The caller closes the descriptor.
Result<int> open_output_for_append(const std::filesystem::path& path);

// Checks before a run that a report can later be written at `path`: its folder is
// made (as open_output_for_append would) and a probe file written there and removed,
// and what is at `path` is one an output may replace. The error names the path.
Status probe_output_file(const std::filesystem::path& path);

}  // namespace aorta
