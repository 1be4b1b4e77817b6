// Reading a file that a user or another program names (a baseline report, a file to
// bundle, a node's file on shared storage): only a regular file is read, opened
// without waiting (a FIFO given by mistake must not block the run) and, unless links
// are followed, without following one; at most a given number of bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
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

// The file opened as above, for a caller that reads it its own way (a copy into a
// file); the descriptor is closed with the object.
class RegularFileReader {
 public:
  RegularFileReader(const std::filesystem::path& path, bool follow_links);
  ~RegularFileReader();
  RegularFileReader(const RegularFileReader&) = delete;
  RegularFileReader& operator=(const RegularFileReader&) = delete;

  // kRead: open and a regular file; else kCannotOpen or kNotRegular, with detail()
  // as FileText's.
  FileText::Status status() const { return status_; }
  const std::string& detail() const { return detail_; }
  int open_error() const { return open_error_; }  // the open's errno; 0 when it opened
  std::uintmax_t size() const { return size_; }   // at the open
  // Hands the file's bytes to take, a buffer at a time, to the end or until take
  // answers false. 0, or the errno of a read that failed.
  int read_all(std::span<char> buffer, const std::function<bool(const char* bytes, size_t size)>& take);

 private:
  int fd_ = -1;
  FileText::Status status_ = FileText::Status::kRead;
  std::string detail_;
  int open_error_ = 0;
  std::uintmax_t size_ = 0;
};

}  // namespace aorta
