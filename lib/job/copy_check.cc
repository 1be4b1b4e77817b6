#include "job/copy_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <vector>

#include "common/stream_decoder.h"

namespace aorta::job {

std::string compression_name(Compression c) {
  switch (c) {
    case Compression::kZstd: return "zstd";
    case Compression::kGzip: return "gzip";
    case Compression::kNone: break;
  }
  return "none";
}

std::string compression_suffix(Compression c) {
  switch (c) {
    case Compression::kZstd: return ".zst";
    case Compression::kGzip: return ".gz";
    case Compression::kNone: break;
  }
  return "";
}

std::vector<std::string> compressor_words(Compression c) {
  // zstd writes an XXH64 checksum into every frame by default; -q: no progress.
  switch (c) {
    case Compression::kZstd: return {"zstd", "-1", "-q", "-c"};
    case Compression::kGzip: return {"gzip", "-1", "-c"};
    case Compression::kNone: break;
  }
  return {};
}

std::string probe_compressor_command() {
  return "if command -v zstd >/dev/null 2>&1; then echo zstd; elif command -v gzip >/dev/null 2>&1; then echo gzip; "
         "else echo none; fi";
}

namespace {

constexpr size_t kChunk = 1 << 20;

Error damaged(const std::filesystem::path& file, const std::string& why) {
  return Error{ErrorCode::kIo, "the compressed copy " + file.string() + " is damaged: " + why, file.string()};
}

Error too_big(const std::filesystem::path& file, uint64_t max_bytes) {
  return Error{ErrorCode::kIo,
               "the compressed copy " + file.string() + " decompresses to more than the " + std::to_string(max_bytes) +
                   " bytes the node listed (changed while it was copied?); decompression was stopped there",
               file.string()};
}

// The decoder's failure in the words of a copy check.
Error copy_error(const StreamDecoder& decoder, const Error& error, Compression codec, const std::filesystem::path& file) {
  switch (decoder.fault()) {
    case DecodeFault::kRead:
      return Error{ErrorCode::kIo, "cannot read " + file.string() + ": " + error.message, file.string()};
    case DecodeFault::kDamaged:
      return damaged(file, decoder.detail());
    case DecodeFault::kTruncated:
      return damaged(file, codec == Compression::kZstd ? "the stream ends inside a frame (truncated)"
                                                       : "the stream ends inside a member (truncated)");
    default:
      return damaged(file, error.message);
  }
}

// Decodes the whole stream, stopping right past `max_bytes` (never decoding more).
Result<uint64_t> decoded_size(int fd, Compression codec, const std::filesystem::path& file, uint64_t max_bytes) {
  StreamDecoder decoder(fd, codec, false);  // the listed size bounds it, not a ratio
  if (!decoder.started())
    return Error{ErrorCode::kIo, codec == Compression::kZstd ? "zstd could not start" : "zlib could not start", file.string()};
  std::vector<char> buffer(kChunk);
  uint64_t total = 0;
  for (;;) {
    const uint64_t room = max_bytes - total;  // total never passes max_bytes here
    auto got = decoder.read(buffer.data(), room >= buffer.size() ? buffer.size() : static_cast<size_t>(room) + 1);
    if (!got) return copy_error(decoder, got.error(), codec, file);
    if (*got == 0) return total;
    total += *got;
    if (total > max_bytes) return too_big(file, max_bytes);
  }
}

}  // namespace

uint64_t max_compressed_bytes(uint64_t listed) { return listed + listed / 64 + (64 << 10); }

Result<uint64_t> verified_size(const std::filesystem::path& file, Compression c, uint64_t max_bytes) {
  if (c == Compression::kNone) {
    std::error_code ec;
    uintmax_t size = std::filesystem::file_size(file, ec);
    if (ec) return Error{ErrorCode::kIo, "cannot read " + file.string() + ": " + ec.message(), file.string()};
    if (size > max_bytes)
      return Error{ErrorCode::kIo,
                   "the copy " + file.string() + " holds " + std::to_string(size) + " bytes, more than the " +
                       std::to_string(max_bytes) + " bytes the node listed",
                   file.string()};
    return static_cast<uint64_t>(size);
  }
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{ErrorCode::kIo, "cannot read " + file.string(), file.string()};
  struct stat st{};
  Result<uint64_t> size = ::fstat(fd, &st) == 0 && st.st_size == 0
                              ? Result<uint64_t>(damaged(file, "it is empty"))
                              : decoded_size(fd, c, file, max_bytes);
  ::close(fd);
  return size;
}

}  // namespace aorta::job
