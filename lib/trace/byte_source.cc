#include "trace/byte_source.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace aorta::trace {

// Plain files are read with read(2); gzip files (magic 1f 8b) through zlib, whose
// pass-through mode for plain files would cost an extra copy.
ByteSource::ByteSource(const std::filesystem::path& file, size_t chunk)
    : fd_(::open(file.c_str(), O_RDONLY | O_CLOEXEC)), chunk_(chunk) {
  if (fd_ < 0) return;
  unsigned char magic[2] = {0, 0};
  if (::pread(fd_, magic, 2, 0) != 2 || magic[0] != 0x1f || magic[1] != 0x8b) {
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
    return;
  }
  gz_ = gzdopen(fd_, "rb");
  fd_ = -1;  // owned by gz_ now (or closed, if gzdopen failed)
  if (!gz_) return;
  gzbuffer(gz_, 1u << 20);
  inflater_ = std::thread([this] { inflate_ahead(); });
}

ByteSource::~ByteSource() {
  if (inflater_.joinable()) {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    inflater_.join();
  }
  if (gz_) gzclose(gz_);
  if (fd_ >= 0) ::close(fd_);
}

Result<size_t> ByteSource::read(char* into, size_t size) {
  return gz_ ? read_inflated(into, size) : read_plain(into, size);
}

Result<size_t> ByteSource::read_plain(char* into, size_t size) {
  size_t got = 0;
  while (got < size) {
    ssize_t n = ::read(fd_, into + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error{ErrorCode::kIo, std::string("read failed: ") + std::strerror(errno), ""};
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  return got;
}

// The inflating thread: one chunk ahead of the reader, then it waits. An empty chunk
// marks the end.
void ByteSource::inflate_ahead() {
  std::vector<char> chunk;
  for (;;) {
    chunk.resize(chunk_);
    int n = gzread(gz_, chunk.data(), static_cast<unsigned>(chunk_));
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return !ready_full_ || stop_; });
    if (stop_) return;
    int code = Z_OK;
    const char* message = n <= 0 ? gzerror(gz_, &code) : "";
    // zlib reports a stream cut short as the end, with Z_BUF_ERROR set.
    if (n < 0 || code == Z_BUF_ERROR) {
      error_ = Error{ErrorCode::kInvalidInput, std::string("gzip stream is damaged: ") + message, ""};
      failed_ = true;
      n = 0;
    }
    chunk.resize(static_cast<size_t>(n));
    std::swap(chunk, ready_);  // the reader's last chunk comes back for reuse
    ready_full_ = true;
    changed_.notify_all();
    if (n == 0) return;
  }
}

Result<size_t> ByteSource::read_inflated(char* into, size_t size) {
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
