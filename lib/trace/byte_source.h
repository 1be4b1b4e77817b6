// The bytes of a trace file, plain, gzip or zstd (detected from the content). A
// compressed file is decompressed on a thread of its own, one chunk ahead of the
// reader: decompressing is most of the time it takes to read a .json.gz trace.
// Both compressed formats are read by common/stream_decoder.h's rules, and a stream
// that expands more than 1024 times is refused (a decompression bomb).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "common/result.h"
#include "common/stream_decoder.h"

namespace aorta::trace {

// From the first bytes of the file (gzip 1f 8b, a zstd frame or skippable frame);
// kNone for anything else, including a file that cannot be read.
Compression detect_encoding(const std::filesystem::path& file);

class ByteSource {
 public:
  // `chunk` is the size of the reads that read() will be asked for. A plain file may
  // be read in part: the bytes [begin, end) (end past the file's end: to the end).
  ByteSource(const std::filesystem::path& file, size_t chunk, uint64_t begin = 0, uint64_t end = UINT64_MAX);
  ~ByteSource();
  ByteSource(const ByteSource&) = delete;
  ByteSource& operator=(const ByteSource&) = delete;

  bool open() const { return fd_ >= 0; }
  // Up to `size` bytes; 0 at the end; an error for a read failure or a damaged stream.
  Result<size_t> read(char* into, size_t size);

 private:
  Result<size_t> read_plain(char* into, size_t size);
  Result<size_t> read_decompressed(char* into, size_t size);
  void decompress_ahead();
  void decompress_chunks();  // decompress_ahead's loop

  int fd_ = -1;
  std::optional<StreamDecoder> decoder_;  // reads fd_ when the file is compressed
  uint64_t remaining_ = UINT64_MAX;       // plain: bytes left in the range

  // The decompressing thread hands over one chunk at a time.
  size_t chunk_ = 0;
  std::thread decompressor_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<char> ready_;      // decompressed, not yet taken; guarded by mutex_
  bool ready_full_ = false;      // ready_ holds a chunk (or the end / an error)
  bool stop_ = false;
  std::vector<char> taken_;      // the reader's current chunk
  size_t taken_at_ = 0;
  bool at_end_ = false;
  Error error_;
  bool failed_ = false;
};

}  // namespace aorta::trace
