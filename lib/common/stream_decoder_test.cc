// The one gzip and zstd decoder: its rules and the faults it names for callers that
// word them their own way (the trace reader's own wording is tested through it, in
// trace/byte_source_test.cc; the copy check's in job/copy_check_test.cc).
#include "common/stream_decoder.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/compress.h"
#include "tests/temp_dir.h"

namespace aorta {
namespace {

using aorta::testing::gzip_compress;
using aorta::testing::zstd_compress;

// All of `bytes` decoded, or the error; `fault` is the decoder's.
Result<std::string> decode(const std::string& bytes, Compression codec, bool refuse_bombs, DecodeFault& fault) {
  aorta::testing::TempDir dir;
  const auto file = dir.write("stream", bytes);
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  StreamDecoder decoder(fd, codec, refuse_bombs);
  EXPECT_TRUE(decoder.started());
  std::string out, chunk(1 << 16, '\0');
  Result<std::string> result = out;
  for (;;) {
    auto got = decoder.read(chunk.data(), chunk.size());
    if (!got) {
      result = got.error();
      break;
    }
    if (*got == 0) {
      result = out;
      break;
    }
    out.append(chunk.data(), *got);
  }
  fault = decoder.fault();
  ::close(fd);
  return result;
}

TEST(StreamDecoder, CodecFromTheFirstBytes) {
  const unsigned char gz[] = {0x1f, 0x8b}, zst[] = {0x28, 0xb5, 0x2f, 0xfd}, skippable[] = {0x5a, 0x2a, 0x4d, 0x18};
  EXPECT_EQ(compression_of(gz, 2), Compression::kGzip);
  EXPECT_EQ(compression_of(zst, 4), Compression::kZstd);
  EXPECT_EQ(compression_of(skippable, 4), Compression::kZstd);
  EXPECT_EQ(compression_of(zst, 3), Compression::kNone);
  EXPECT_EQ(compression_of(reinterpret_cast<const unsigned char*>("{\"tr"), 4), Compression::kNone);
}

TEST(StreamDecoder, MembersAndFramesOneAfterAnotherAreOneStream) {
  DecodeFault fault;
  auto gz = decode(gzip_compress("abc") + gzip_compress("") + gzip_compress("def"), Compression::kGzip, true, fault);
  ASSERT_TRUE(gz.ok()) << gz.error().message;
  EXPECT_EQ(*gz, "abcdef");
  auto zst = decode(zstd_compress("abc") + zstd_compress("def"), Compression::kZstd, true, fault);
  ASSERT_TRUE(zst.ok()) << zst.error().message;
  EXPECT_EQ(*zst, "abcdef");
}

TEST(StreamDecoder, EachBrokenRuleIsNamed) {
  const std::string text(100000, 'x');
  DecodeFault fault;
  auto trailing = decode(gzip_compress(text) + "garbage!", Compression::kGzip, true, fault);
  ASSERT_FALSE(trailing.ok());
  EXPECT_EQ(fault, DecodeFault::kTrailingBytes);
  const std::string gz = gzip_compress(text);
  auto cut = decode(gz.substr(0, gz.size() - 3), Compression::kGzip, true, fault);
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(fault, DecodeFault::kTruncated);
  const std::string zst = zstd_compress(text);
  auto cut_frame = decode(zst.substr(0, zst.size() - 3), Compression::kZstd, true, fault);
  ASSERT_FALSE(cut_frame.ok());
  EXPECT_EQ(fault, DecodeFault::kTruncated);
  auto not_a_frame = decode(zst + "garbage!", Compression::kZstd, true, fault);
  ASSERT_FALSE(not_a_frame.ok());
  EXPECT_EQ(fault, DecodeFault::kDamaged);
  EXPECT_NE(not_a_frame.error().message.find("zstd stream is damaged: "), std::string::npos);
}

// 64 MiB of one byte squeezed far past 1024:1: a bomb where bombs are refused, a
// stream like any other where the caller bounds the output itself.
TEST(StreamDecoder, BombLimitOnlyWhereAsked) {
  const std::string zeros = zstd_compress(std::string(64u << 20, '\0'));
  DecodeFault fault;
  auto refused = decode(zeros, Compression::kZstd, true, fault);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(fault, DecodeFault::kExpansion);
  EXPECT_NE(refused.error().message.find("the zstd stream expands more than 1024 times"), std::string::npos);
  auto read = decode(zeros, Compression::kZstd, false, fault);
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->size(), 64u << 20);
}

}  // namespace
}  // namespace aorta
