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
constexpr size_t kZstdInput = 1u << 20;

}  // namespace

TraceEncoding detect_encoding(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return TraceEncoding::kPlain;
  const TraceEncoding e = encoding_of(fd);
  ::close(fd);
  return e;
}

// Plain files are read with read(2); gzip files through zlib, whose pass-through mode
// for plain files would cost an extra copy; zstd files through libzstd's streaming
// decoder.
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
      gz_ = gzdopen(fd_, "rb");
      fd_ = -1;  // owned by gz_ now (or closed, if gzdopen failed)
      if (!gz_) return;
      gzbuffer(gz_, 1u << 20);
      break;
    case TraceEncoding::kZstd:
      zstd_ = ZSTD_createDCtx();
      if (!zstd_ || ZSTD_isError(ZSTD_DCtx_setParameter(zstd_, ZSTD_d_windowLogMax, kZstdWindowLogMax))) {
        ::close(fd_);
        fd_ = -1;
        return;
      }
      ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
      zstd_in_.resize(kZstdInput);
      break;
  }
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
  if (gz_) gzclose(gz_);
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

Result<size_t> ByteSource::gunzip_chunk(std::vector<char>& chunk) {
  int n = gzread(gz_, chunk.data(), static_cast<unsigned>(chunk_));
  int code = Z_OK;
  const char* message = n <= 0 ? gzerror(gz_, &code) : "";
  // zlib reports a stream cut short as the end, with Z_BUF_ERROR set.
  if (n < 0 || code == Z_BUF_ERROR)
    return Error{ErrorCode::kInvalidInput, std::string("gzip stream is damaged: ") + message, ""};
  return static_cast<size_t>(n);
}

// Fills the chunk, short only at the end of the file. libzstd checks each block as it
// decodes it; a file that ends inside a frame is caught at the end (the decoder
// still wants input), as zlib's Z_BUF_ERROR is for gzip.
Result<size_t> ByteSource::unzstd_chunk(std::vector<char>& chunk) {
  size_t produced = 0;
  while (produced < chunk_) {
    if (zstd_pos_.pos == zstd_pos_.size && !zstd_eof_) {
      ssize_t n = ::read(fd_, zstd_in_.data(), zstd_in_.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Error{ErrorCode::kIo, std::string("read failed: ") + std::strerror(errno), ""};
      zstd_eof_ = n == 0;
      zstd_pos_ = ZSTD_inBuffer{zstd_in_.data(), static_cast<size_t>(n), 0};
    }
    ZSTD_outBuffer out{chunk.data() + produced, chunk_ - produced, 0};
    const size_t consumed_before = zstd_pos_.pos;
    const size_t wants = ZSTD_decompressStream(zstd_, &out, &zstd_pos_);
    if (ZSTD_isError(wants))
      return Error{ErrorCode::kInvalidInput, std::string("zstd stream is damaged: ") + ZSTD_getErrorName(wants), ""};
    produced += out.pos;
    // 0: the last call that did anything ended a frame.
    if (out.pos > 0 || zstd_pos_.pos > consumed_before) zstd_frame_done_ = wants == 0;
    if (zstd_eof_ && zstd_pos_.pos == zstd_pos_.size && out.pos == 0) {
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
    Result<size_t> n = gz_ ? gunzip_chunk(chunk) : unzstd_chunk(chunk);
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
