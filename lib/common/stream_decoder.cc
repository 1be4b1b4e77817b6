#include "common/stream_decoder.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace aorta {
namespace {

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

Compression compression_of(const unsigned char* m, size_t size) {
  if (size >= 2 && m[0] == 0x1f && m[1] == 0x8b) return Compression::kGzip;
  if (size < 4) return Compression::kNone;
  if (m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd) return Compression::kZstd;
  if ((m[0] & 0xf0) == 0x50 && m[1] == 0x2a && m[2] == 0x4d && m[3] == 0x18) return Compression::kZstd;
  return Compression::kNone;
}

// gzip through zlib's inflate (gzread would pass over bytes after the last member in
// silence); zstd through libzstd's streaming decoder.
StreamDecoder::StreamDecoder(int fd, Compression codec, bool refuse_bombs)
    : fd_(fd), codec_(codec), refuse_bombs_(refuse_bombs) {
  if (codec == Compression::kGzip) {
    gzip_open_ = inflateInit2(&gzip_, 16 + MAX_WBITS) == Z_OK;  // the gzip wrapper only
  } else {
    zstd_ = ZSTD_createDCtx();
    if (zstd_ && ZSTD_isError(ZSTD_DCtx_setParameter(zstd_, ZSTD_d_windowLogMax, kZstdWindowLogMax))) {
      ZSTD_freeDCtx(zstd_);
      zstd_ = nullptr;
    }
  }
  if (started()) in_.resize(kCompressedInput);
}

StreamDecoder::~StreamDecoder() {
  if (gzip_open_) inflateEnd(&gzip_);
  if (zstd_) ZSTD_freeDCtx(zstd_);
}

Result<size_t> StreamDecoder::read(char* into, size_t size) {
  return codec_ == Compression::kGzip ? gunzip(into, size) : unzstd(into, size);
}

Error StreamDecoder::fail(DecodeFault fault, std::string message, std::string detail) {
  fault_ = fault;
  detail_ = std::move(detail);
  return Error{fault == DecodeFault::kRead ? ErrorCode::kIo : ErrorCode::kInvalidInput, std::move(message), ""};
}

Status StreamDecoder::read_more() {
  if (in_pos_ > 0) {  // the bytes not yet decoded go to the front
    std::memmove(in_.data(), in_.data() + in_pos_, in_end_ - in_pos_);
    in_offset_ += in_pos_;
    in_end_ -= in_pos_;
    in_pos_ = 0;
  }
  for (;;) {
    const ssize_t n = ::read(fd_, in_.data() + in_end_, in_.size() - in_end_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(DecodeFault::kRead, std::string("read failed: ") + std::strerror(errno));
    in_eof_ = n == 0;
    in_end_ += static_cast<size_t>(n);
    return ok_status();
  }
}

Status StreamDecoder::check_expansion(const char* format) const {
  const uint64_t consumed = in_offset_ + in_pos_;
  if (!refuse_bombs_ || produced_ <= kMaxExpansion * consumed + kExpansionFloor) return ok_status();
  return Error{ErrorCode::kInvalidInput,
               std::string("the ") + format + " stream expands more than " + std::to_string(kMaxExpansion) +
                   " times its compressed size (" + std::to_string(produced_ >> 20) + " MiB from its first " +
                   std::to_string(consumed) + " bytes): a decompression bomb, not a trace",
               ""};
}

// After a member, only another member (its magic bytes) or the end of the input may
// follow. True: a member starts; false: the stream ended.
Result<bool> StreamDecoder::next_gzip_member() {
  while (in_end_ - in_pos_ < 2 && !in_eof_)
    if (Status s = read_more(); !s) return s.error();
  if (in_pos_ == in_end_) return false;
  if (in_end_ - in_pos_ < 2 || in_[in_pos_] != '\x1f' || in_[in_pos_ + 1] != '\x8b')
    return fail(DecodeFault::kTrailingBytes, "trailing bytes after the last gzip member, at byte " +
                                                 std::to_string(in_offset_ + in_pos_) +
                                                 " of the file: they are not a gzip member");
  inflateReset(&gzip_);
  gzip_member_done_ = false;
  return true;
}

Result<size_t> StreamDecoder::gunzip(char* into, size_t size) {
  size_t produced = 0;
  while (produced < size) {
    if (in_pos_ == in_end_ && !in_eof_)
      if (Status s = read_more(); !s) return s.error();
    if (gzip_member_done_) {
      auto more = next_gzip_member();
      if (!more) return more.error();
      if (!*more) break;
    }
    gzip_.next_in = reinterpret_cast<Bytef*>(in_.data() + in_pos_);
    gzip_.avail_in = static_cast<uInt>(in_end_ - in_pos_);
    gzip_.next_out = reinterpret_cast<Bytef*>(into + produced);
    gzip_.avail_out = static_cast<uInt>(size - produced);
    const int code = inflate(&gzip_, Z_NO_FLUSH);
    in_pos_ = in_end_ - gzip_.avail_in;
    const size_t out = size - produced - gzip_.avail_out;
    produced += out;
    produced_ += out;
    if (code == Z_STREAM_END) {
      gzip_member_done_ = true;
    } else if (code == Z_BUF_ERROR) {  // no progress: it wants more input
      if (in_eof_ && in_pos_ == in_end_)
        return fail(DecodeFault::kTruncated, "gzip stream is damaged: the file ends inside a member (truncated)");
    } else if (code != Z_OK) {
      const std::string why = gzip_.msg ? gzip_.msg : zError(code);
      return fail(DecodeFault::kDamaged, "gzip stream is damaged: " + why, why);
    }
    if (Status s = check_expansion("gzip"); !s) return fail(DecodeFault::kExpansion, s.error().message);
  }
  return produced;
}

// libzstd checks each block as it decodes it; an input that ends inside a frame is
// caught at the end (the decoder still wants input), as inflate's is for gzip.
Result<size_t> StreamDecoder::unzstd(char* into, size_t size) {
  size_t produced = 0;
  while (produced < size) {
    if (in_pos_ == in_end_ && !in_eof_)
      if (Status s = read_more(); !s) return s.error();
    ZSTD_inBuffer in{in_.data(), in_end_, in_pos_};
    ZSTD_outBuffer out{into + produced, size - produced, 0};
    const size_t wants = ZSTD_decompressStream(zstd_, &out, &in);
    if (ZSTD_isError(wants))
      return fail(DecodeFault::kDamaged, std::string("zstd stream is damaged: ") + ZSTD_getErrorName(wants),
                  ZSTD_getErrorName(wants));
    const bool consumed = in.pos > in_pos_;
    in_pos_ = in.pos;
    produced += out.pos;
    produced_ += out.pos;
    // 0: the last call that did anything ended a frame.
    if (out.pos > 0 || consumed) zstd_frame_done_ = wants == 0;
    if (Status s = check_expansion("zstd"); !s) return fail(DecodeFault::kExpansion, s.error().message);
    if (in_eof_ && in_pos_ == in_end_ && out.pos == 0) {
      if (!zstd_frame_done_)
        return fail(DecodeFault::kTruncated, "zstd stream is damaged: the file ends inside a frame (truncated)");
      break;
    }
  }
  return produced;
}

}  // namespace aorta
