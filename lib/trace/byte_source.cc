#include "trace/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace aorta::trace {
namespace {

// O_NONBLOCK: a FIFO swapped in for a listed trace must not block the open (a regular
// file's reads ignore the flag); anything but a regular file is then not read.
int open_regular(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat st {};
  if (fd >= 0 && (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
    ::close(fd);
    return -1;
  }
  return fd;
}

Compression encoding_of(int fd) {
  unsigned char magic[4] = {0, 0, 0, 0};
  const ssize_t n = ::pread(fd, magic, 4, 0);
  return compression_of(magic, n > 0 ? static_cast<size_t>(n) : 0);
}

}  // namespace

Compression detect_encoding(const std::filesystem::path& file) {
  const int fd = open_regular(file);
  if (fd < 0) return Compression::kNone;
  const Compression e = encoding_of(fd);
  ::close(fd);
  return e;
}

// Plain files are read with read(2), compressed ones through the StreamDecoder.
ByteSource::ByteSource(const std::filesystem::path& file, size_t chunk, uint64_t begin, uint64_t end)
    : fd_(open_regular(file)), chunk_(chunk) {
  if (fd_ < 0) return;
  const Compression encoding = encoding_of(fd_);
  if (encoding == Compression::kNone) {
    if (begin > 0 && ::lseek(fd_, static_cast<off_t>(begin), SEEK_SET) < 0) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    remaining_ = end > begin ? end - begin : 0;
    ::posix_fadvise(fd_, static_cast<off_t>(begin), end == UINT64_MAX ? 0 : static_cast<off_t>(remaining_),
                    POSIX_FADV_SEQUENTIAL);
    return;
  }
  decoder_.emplace(fd_, encoding, true);
  if (!decoder_->started()) {
    decoder_.reset();
    ::close(fd_);
    fd_ = -1;
    return;
  }
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
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
    Result<size_t> n = decoder_->read(chunk.data(), chunk_);
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
