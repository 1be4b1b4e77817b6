#include "trace/byte_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace aorta::trace {
namespace {

// A zstd frame, or a skippable frame (magic 0x184D2A50 to 0x184D2A5F), little-endian.
bool zstd_magic(const unsigned char* m) {
  if (m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) return true;
  return (m[0] & 0xf0) == 0x50 && m[1] == 0x2a && m[2] == 0x4d && m[3] == 0x18;
}

TraceEncoding encoding_of(int fd) {
  unsigned char magic[4] = {0, 0, 0, 0};
  const ssize_t n = ::pread(fd, magic, 4, 0);
  if (n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) return TraceEncoding::kGzip;
  if (n == 4 && zstd_magic(magic)) return TraceEncoding::kZstd;
  return TraceEncoding::kPlain;
}

// The largest zstd window accepted: libzstd's own default for streaming, so a frame
// cannot make the decoder take more than 128 MiB whatever its header claims (27 is
// ZSTD_WINDOWLOG_LIMIT_DEFAULT, declared only for static linking).
constexpr int kZstdWindowLogMax = 27;
constexpr size_t kCompressedInput = 1u << 20;

// gzip's largest ratio is about 1032:1 and zstd's 32768:1 (RLE blocks); real traces
// compress 10 to 30 times. A stream past 1024 times its compressed size (and a
// floor, for small files) is a bomb: its bytes would cost time without bound, and
// whitespace costs no memory, so no other limit would stop it.
constexpr uint64_t kMaxExpansion = 1024;
constexpr uint64_t kExpansionFloor = uint64_t{32} << 20;

}  // namespace

TraceEncoding detect_encoding(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return TraceEncoding::kPlain;
  const TraceEncoding e = encoding_of(fd);
  ::close(fd);
  return e;
}

// Plain files are read with read(2); gzip files through zlib's inflate (gzread would
// pass over bytes after the last member in silence); zstd files through libzstd's
// streaming decoder.
ByteSource::ByteSource(const std::filesystem::path& file, size_t chunk, uint64_t begin, uint64_t end)
    : fd_(::open(file.c_str(), O_RDONLY | O_CLOEXEC)), chunk_(chunk) {
  if (fd_ < 0) return;
  switch (encoding_of(fd_)) {
    case TraceEncoding::kPlain:
      if (begin > 0 && ::lseek(fd_, static_cast<off_t>(begin), SEEK_SET) < 0) {
        ::close(fd_);
        fd_ = -1;
        return;
      }
      remaining_ = end > begin ? end - begin : 0;
      ::posix_fadvise(fd_, static_cast<off_t>(begin), end == UINT64_MAX ? 0 : static_cast<off_t>(remaining_),
                      POSIX_FADV_SEQUENTIAL);
      return;
    case TraceEncoding::kGzip:
      gzip_open_ = inflateInit2(&gzip_, 16 + MAX_WBITS) == Z_OK;  // the gzip wrapper only
      if (!gzip_open_) {
        ::close(fd_);
        fd_ = -1;
        return;
      }
      break;
    case TraceEncoding::kZstd:
      zstd_ = ZSTD_createDCtx();
      if (!zstd_ || ZSTD_isError(ZSTD_DCtx_setParameter(zstd_, ZSTD_d_windowLogMax, kZstdWindowLogMax))) {
        ::close(fd_);
        fd_ = -1;
        return;
      }
      break;
  }
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  in_.resize(kCompressedInput);
  decompressor_ = std::thread([this] { decompress_ahead(); });
}

ByteSource::~ByteSource() {
  if (decompressor_.joinable()) {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    decompressor_.join();
  }
  if (gzip_open_) inflateEnd(&gzip_);
  if (zstd_) ZSTD_freeDCtx(zstd_);
  if (fd_ >= 0) ::close(fd_);
}

Result<size_t> ByteSource::read(char* into, size_t size) {
  return decompressor_.joinable() ? read_decompressed(into, size) : read_plain(into, size);
}

Result<size_t> ByteSource::read_plain(char* into, size_t size) {
  size = static_cast<size_t>(std::min<uint64_t>(size, remaining_));
  size_t got = 0;
  while (got < size) {
    ssize_t n = ::read(fd_, into + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{ErrorCode::kIo, std::string("read failed: ") + std::strerror(errno), ""};
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  remaining_ -= got;
  return got;
}

Status ByteSource::read_more() {
  if (in_pos_ > 0) {  // the bytes not yet decoded go to the front
    std::memmove(in_.data(), in_.data() + in_pos_, in_end_ - in_pos_);
    in_offset_ += in_pos_;
    in_end_ -= in_pos_;
    in_pos_ = 0;
  }
  for (;;) {
    const ssize_t n = ::read(fd_, in_.data() + in_end_, in_.size() - in_end_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{ErrorCode::kIo, std::string("read failed: ") + std::strerror(errno), ""};
    in_eof_ = n == 0;
    in_end_ += static_cast<size_t>(n);
    return ok_status();
  }
}

Status ByteSource::check_expansion(const char* format) const {
  const uint64_t consumed = in_offset_ + in_pos_;
  if (produced_ <= kMaxExpansion * consumed + kExpansionFloor) return ok_status();
  return Error{ErrorCode::kInvalidInput,
               std::string("the ") + format + " stream expands more than " + std::to_string(kMaxExpansion) +
                   " times its compressed size (" + std::to_string(produced_ >> 20) + " MiB from its first " +
                   std::to_string(consumed) + " bytes): a decompression bomb, not a trace",
               ""};
}

// Fills the chunk, short only at the end of the file. After a member, only another
// member (its magic bytes) or the end of the file may follow.
Result<size_t> ByteSource::gunzip_chunk(std::vector<char>& chunk) {
  size_t produced = 0;
  while (produced < chunk_) {
    if (in_pos_ == in_end_ && !in_eof_)
      if (Status s = read_more(); !s) return s.error();
    if (gzip_member_done_) {
      while (in_end_ - in_pos_ < 2 && !in_eof_)
        if (Status s = read_more(); !s) return s.error();
      if (in_pos_ == in_end_) break;
      if (in_end_ - in_pos_ < 2 || in_[in_pos_] != '\x1f' || in_[in_pos_ + 1] != '\x8b')
        return Error{ErrorCode::kInvalidInput,
                     "trailing bytes after the last gzip member, at byte " + std::to_string(in_offset_ + in_pos_) +
                         " of the file: they are not a gzip member",
                     ""};
      inflateReset(&gzip_);
      gzip_member_done_ = false;
    }
    gzip_.next_in = reinterpret_cast<Bytef*>(in_.data() + in_pos_);
    gzip_.avail_in = static_cast<uInt>(in_end_ - in_pos_);
    gzip_.next_out = reinterpret_cast<Bytef*>(chunk.data() + produced);
    gzip_.avail_out = static_cast<uInt>(chunk_ - produced);
    const int code = inflate(&gzip_, Z_NO_FLUSH);
    in_pos_ = in_end_ - gzip_.avail_in;
    const size_t out = chunk_ - produced - gzip_.avail_out;
    produced += out;
    produced_ += out;
    if (code == Z_STREAM_END) {
      gzip_member_done_ = true;
    } else if (code == Z_BUF_ERROR) {  // no progress: it wants more input
      if (in_eof_ && in_pos_ == in_end_)
        return Error{ErrorCode::kInvalidInput, "gzip stream is damaged: the file ends inside a member (truncated)", ""};
    } else if (code != Z_OK) {
      return Error{ErrorCode::kInvalidInput,
                   std::string("gzip stream is damaged: ") + (gzip_.msg ? gzip_.msg : zError(code)), ""};
    }
    if (Status s = check_expansion("gzip"); !s) return s.error();
  }
  return produced;
}

// Fills the chunk, short only at the end of the file. libzstd checks each block as it
// decodes it; a file that ends inside a frame is caught at the end (the decoder
// still wants input), as inflate's is for gzip.
Result<size_t> ByteSource::unzstd_chunk(std::vector<char>& chunk) {
  size_t produced = 0;
  while (produced < chunk_) {
    if (in_pos_ == in_end_ && !in_eof_)
      if (Status s = read_more(); !s) return s.error();
    ZSTD_inBuffer in{in_.data(), in_end_, in_pos_};
    ZSTD_outBuffer out{chunk.data() + produced, chunk_ - produced, 0};
    const size_t wants = ZSTD_decompressStream(zstd_, &out, &in);
    if (ZSTD_isError(wants))
      return Error{ErrorCode::kInvalidInput, std::string("zstd stream is damaged: ") + ZSTD_getErrorName(wants), ""};
    const bool consumed = in.pos > in_pos_;
    in_pos_ = in.pos;
    produced += out.pos;
    produced_ += out.pos;
    // 0: the last call that did anything ended a frame.
    if (out.pos > 0 || consumed) zstd_frame_done_ = wants == 0;
    if (Status s = check_expansion("zstd"); !s) return s.error();
    if (in_eof_ && in_pos_ == in_end_ && out.pos == 0) {
      if (!zstd_frame_done_)
        return Error{ErrorCode::kInvalidInput, "zstd stream is damaged: the file ends inside a frame (truncated)", ""};
      break;
    }
  }
  return produced;
}

// The decompressing thread: one chunk ahead of the reader, then it waits. An empty
// chunk marks the end.
void ByteSource::decompress_ahead() {
  // Nothing may leave this thread (std::terminate): a failure here, such as running
  // out of memory, is handed to the reader as the file's error.
  try {
    decompress_chunks();
  } catch (...) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !ready_full_ || stop_; });
    if (stop_) return;
    error_ = Error{ErrorCode::kIo, "decompressing failed (out of memory?)", ""};
    failed_ = true;
    ready_.clear();
    ready_full_ = true;
    changed_.notify_all();
  }
}

void ByteSource::decompress_chunks() {
  std::vector<char> chunk;
  for (;;) {
    chunk.resize(chunk_);
    Result<size_t> n = gzip_open_ ? gunzip_chunk(chunk) : unzstd_chunk(chunk);
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !ready_full_ || stop_; });
    if (stop_) return;
    size_t size = 0;
    if (!n) {
      error_ = n.error();
      failed_ = true;
    } else {
      size = *n;
    }
    chunk.resize(size);
    std::swap(chunk, ready_);  // the reader's last chunk comes back for reuse
    ready_full_ = true;
    changed_.notify_all();
    if (size == 0) return;
  }
}

Result<size_t> ByteSource::read_decompressed(char* into, size_t size) {
  size_t got = 0;
  while (got < size && !at_end_) {
    if (taken_at_ == taken_.size()) {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [this] { return ready_full_; });
      if (failed_) return error_;
      std::swap(taken_, ready_);
      taken_at_ = 0;
      ready_full_ = false;
      changed_.notify_all();
      at_end_ = taken_.empty();
      continue;
    }
    size_t n = std::min(size - got, taken_.size() - taken_at_);
    std::memcpy(into + got, taken_.data() + taken_at_, n);
    got += n;
    taken_at_ += n;
  }
  return got;
}

}  // namespace aorta::trace
