// Reading a file that a user or another program names (a baseline report, a file to
// bundle): only a regular file is read, opened without waiting (a FIFO given by
// mistake must not block the run) and, unless links are followed, without following
// one; at most a given number of bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace aorta {

struct FileText {
  enum class Status { kRead, kCannotOpen, kNotRegular, kTooLarge, kReadError };
  Status status = Status::kRead;
  std::string text;    // kRead: the whole file
  std::string detail;  // kCannotOpen, kReadError: the system's reason; kNotRegular: what it is ("a FIFO")
  std::uintmax_t size = 0;  // kTooLarge: the file's size
};

FileText read_regular_file(const std::filesystem::path& path, std::uintmax_t max_bytes, bool follow_links);

}  // namespace aorta
