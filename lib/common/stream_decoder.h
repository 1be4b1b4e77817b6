// The one gzip and zstd decoder of the suite: trace files (trace/byte_source.h) and
// the compressed copies a node sends (job/copy_check.h) are read by the same rules,
// so a stream one of them accepts the other does not refuse, or the reverse.
#pragma once

#include <zlib.h>
#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/compression.h"
#include "common/result.h"

namespace aorta {

// From a file's first bytes: gzip's magic (1f 8b), a zstd frame's or a skippable
// frame's (magic 0x184D2A50 to 0x184D2A5F), little-endian; kNone for anything else.
Compression compression_of(const unsigned char* head, size_t size);

// Which rule a stream broke, for a caller that words its failures its own way.
enum class DecodeFault { kNone, kRead, kDamaged, kTruncated, kTrailingBytes, kExpansion };

// Decodes the bytes of a file descriptor (not owned) from its current position. Both
// formats are read alike: concatenated gzip members or zstd frames are one stream,
// and anything else after the last one is an error; a stream that ends inside a
// member or frame is truncated; each member's CRC32 and length and each frame's
// checksum are checked by the libraries. With `refuse_bombs`, a stream that expands
// more than 1024 times its compressed size (and 32 MiB, for small files) is refused
// as a decompression bomb. `codec` is kGzip or kZstd.
class StreamDecoder {
 public:
  StreamDecoder(int fd, Compression codec, bool refuse_bombs);
  ~StreamDecoder();
  StreamDecoder(const StreamDecoder&) = delete;
  StreamDecoder& operator=(const StreamDecoder&) = delete;

  // False when the library could not start (out of memory); then read() may not be called.
  bool started() const { return gzip_open_ || zstd_ != nullptr; }
  // Fills `into` with `size` decoded bytes, fewer only at the end of the stream (0
  // there). An error names the broken rule in words of its own ("gzip stream is
  // damaged: ..."); fault() and detail() say the same for other wordings.
  Result<size_t> read(char* into, size_t size);
  DecodeFault fault() const { return fault_; }
  const std::string& detail() const { return detail_; }  // kDamaged: the library's words

 private:
  Result<size_t> gunzip(char* into, size_t size);
  Result<size_t> unzstd(char* into, size_t size);
  Result<bool> next_gzip_member();
  Status read_more();  // more compressed bytes after the ones not yet decoded
  Status check_expansion(const char* format) const;
  Error fail(DecodeFault fault, std::string message, std::string detail = "");

  const int fd_;
  const Compression codec_;
  const bool refuse_bombs_;
  z_stream gzip_{};  // inflating fd_, when gzip_open_
  bool gzip_open_ = false;
  ZSTD_DCtx* zstd_ = nullptr;

  // Compressed input: in_[in_pos_, in_end_) read and not yet decoded; in_offset_ is
  // in_[0]'s byte in the input.
  std::vector<char> in_;
  size_t in_pos_ = 0, in_end_ = 0;
  uint64_t in_offset_ = 0;
  bool in_eof_ = false;
  uint64_t produced_ = 0;          // decompressed bytes so far
  bool gzip_member_done_ = false;  // inflate is between gzip members
  bool zstd_frame_done_ = false;   // the decoder is between frames
  DecodeFault fault_ = DecodeFault::kNone;
  std::string detail_;
};

}  // namespace aorta
