#include "job/copy_check.h"

#include <zlib.h>
#include <zstd.h>

#include <fstream>
#include <memory>
#include <vector>

#include "common/shell_quote.h"

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

std::string compress_command(Compression c, const std::string& node_path) {
  // zstd writes an XXH64 checksum into every frame by default; -q: no progress.
  switch (c) {
    case Compression::kZstd: return "zstd -1 -q -c -- " + shell_quote(node_path);
    case Compression::kGzip: return "gzip -1 -c -- " + shell_quote(node_path);
    case Compression::kNone: break;
  }
  return "";
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

Result<uint64_t> zstd_size(std::ifstream& in, const std::filesystem::path& file, uint64_t max_bytes) {
  std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
  std::vector<char> input(kChunk), output(ZSTD_DStreamOutSize());
  uint64_t total = 0;
  size_t last = 0;  // 0 once a frame is complete (checksum checked)
  bool any = false;
  while (in.read(input.data(), input.size()) || in.gcount() > 0) {
    ZSTD_inBuffer inb{input.data(), static_cast<size_t>(in.gcount()), 0};
    any = true;
    // A full output buffer may leave decoded bytes behind: call again until it is
    // not full, unless the frame just ended (a call past it would start the next).
    bool full = false;
    while (inb.pos < inb.size || full) {
      ZSTD_outBuffer outb{output.data(), output.size(), 0};
      last = ZSTD_decompressStream(ctx.get(), &outb, &inb);
      if (ZSTD_isError(last)) return damaged(file, ZSTD_getErrorName(last));
      total += outb.pos;
      if (total > max_bytes) return too_big(file, max_bytes);
      full = outb.pos == outb.size && last != 0;
    }
  }
  if (!any) return damaged(file, "it is empty");
  if (last != 0) return damaged(file, "the stream ends inside a frame (truncated)");
  return total;
}

Result<uint64_t> gzip_size(std::ifstream& in, const std::filesystem::path& file, uint64_t max_bytes) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return Error{ErrorCode::kIo, "zlib could not start", file.string()};
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&z, inflateEnd);
  std::vector<unsigned char> input(kChunk), output(kChunk);
  uint64_t total = 0;
  bool ended = false;  // the last member's CRC32 and length checked
  bool any = false;
  while (in.read(reinterpret_cast<char*>(input.data()), input.size()) || in.gcount() > 0) {
    z.next_in = input.data();
    z.avail_in = static_cast<uInt>(in.gcount());
    any = true;
    while (z.avail_in > 0) {
      if (ended) {
        // gzip files may hold several members, one after the other.
        inflateReset(&z);
        ended = false;
      }
      z.next_out = output.data();
      z.avail_out = static_cast<uInt>(output.size());
      int rc = inflate(&z, Z_NO_FLUSH);
      total += output.size() - z.avail_out;
      if (total > max_bytes) return too_big(file, max_bytes);
      if (rc == Z_STREAM_END) {
        ended = true;
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return damaged(file, z.msg ? z.msg : "inflate error " + std::to_string(rc));
      }
    }
    // Output the input has produced but that did not fit yet.
    while (!ended) {
      z.next_out = output.data();
      z.avail_out = static_cast<uInt>(output.size());
      int rc = inflate(&z, Z_NO_FLUSH);
      total += output.size() - z.avail_out;
      if (total > max_bytes) return too_big(file, max_bytes);
      if (rc == Z_STREAM_END) ended = true;
      else if (rc != Z_OK && rc != Z_BUF_ERROR) return damaged(file, z.msg ? z.msg : "inflate error " + std::to_string(rc));
      if (z.avail_out != 0) break;
    }
  }
  if (!any) return damaged(file, "it is empty");
  if (!ended) return damaged(file, "the stream ends inside a member (truncated)");
  return total;
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
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error{ErrorCode::kIo, "cannot read " + file.string(), file.string()};
  return c == Compression::kZstd ? zstd_size(in, file, max_bytes) : gzip_size(in, file, max_bytes);
}

}  // namespace aorta::job
