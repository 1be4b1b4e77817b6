// The bytes of a trace file, plain or gzip (detected from the content). A gzip file
// is inflated on a thread of its own, one chunk ahead of the reader: inflating is
// most of the time it takes to read a .json.gz trace.
#pragma once

#include <zlib.h>

#include <condition_variable>
#include <cstddef>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "common/result.h"

namespace aorta::trace {

class ByteSource {
 public:
  // `chunk` is the size of the reads that read() will be asked for.
  ByteSource(const std::filesystem::path& file, size_t chunk);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  bool open() const { return fd_ >= 0 || gz_ != nullptr; }
  // Up to `size` bytes; 0 at the end; an error for a read failure or a damaged gzip stream.
  Result<size_t> read(char* into, size_t size);

 private:
  Result<size_t> read_plain(char* into, size_t size);
  Result<size_t> read_inflated(char* into, size_t size);
  void inflate_ahead();

  int fd_ = -1;
  gzFile gz_ = nullptr;

  // The inflating thread hands over one chunk at a time.
  size_t chunk_ = 0;
  std::thread inflater_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<char> ready_;      // inflated, not yet taken; guarded by mutex_
  bool ready_full_ = false;      // ready_ holds a chunk (or the end / an error)
  bool stop_ = false;
  std::vector<char> taken_;      // the reader's current chunk
  size_t taken_at_ = 0;
  bool at_end_ = false;
  Error error_;
  bool failed_ = false;
};

}  // namespace aorta::trace
