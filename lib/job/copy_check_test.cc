#include "job/copy_check.h"

#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "common/shell_quote.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

// Compressed by the system's own zstd and gzip, as a node would.
class CopyCheck : public ::testing::Test {
 protected:
  CopyCheck() {
    for (int i = 0; i < 20000; ++i) text_ += "{\"ts\": " + std::to_string(i * 7) + "},\n";
    plain_ = dir_.write("t.json", text_);
  }
  std::filesystem::path compressed(const std::string& shell) {
    auto out = dir_.path() / "copy";
    std::string command = shell + " > " + shell_quote(out.string());
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return out;
  }
  std::string bytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  void rewrite(const std::filesystem::path& p, const std::string& data) { std::ofstream(p, std::ios::binary) << data; }

  aorta::testing::TempDir dir_;
  std::string text_;
  std::filesystem::path plain_;
};

TEST_F(CopyCheck, CompressorsReadTheirStdin) {
  EXPECT_EQ(compressor_words(Compression::kZstd), (std::vector<std::string>{"zstd", "-1", "-q", "-c"}));
  EXPECT_EQ(compressor_words(Compression::kGzip), (std::vector<std::string>{"gzip", "-1", "-c"}));
  EXPECT_TRUE(compressor_words(Compression::kNone).empty());
}

TEST_F(CopyCheck, ZstdSizeIsTheDecompressedSize) {
  auto copy = compressed("zstd -1 -q -c -- " + shell_quote(plain_.string()));
  auto size = verified_size(copy, Compression::kZstd, text_.size());
  ASSERT_TRUE(size.ok()) << size.error().describe();
  EXPECT_EQ(*size, text_.size());
}

TEST_F(CopyCheck, GzipMembersOneAfterAnotherAllCount) {
  auto copy = compressed("{ gzip -1 -c -- " + shell_quote(plain_.string()) + "; gzip -1 -c -- " +
                         shell_quote(plain_.string()) + "; }");
  auto size = verified_size(copy, Compression::kGzip, 2 * text_.size());
  ASSERT_TRUE(size.ok()) << size.error().describe();
  EXPECT_EQ(*size, 2 * text_.size());
}

TEST_F(CopyCheck, TruncatedStreamsAreDamaged) {
  for (auto [tool, c] : {std::pair{"zstd -q", Compression::kZstd}, {"gzip", Compression::kGzip}}) {
    auto copy = compressed(std::string(tool) + " -1 -c -- " + shell_quote(plain_.string()));
    std::string data = bytes(copy);
    rewrite(copy, data.substr(0, data.size() - 3));
    auto size = verified_size(copy, c, text_.size());
    ASSERT_FALSE(size.ok()) << tool;
    EXPECT_NE(size.error().message.find("the compressed copy " + copy.string() + " is damaged: "), std::string::npos)
        << size.error().message;
  }
}

// The last bytes of each are the frame's own check: zstd's XXH64 (low 4 bytes),
// gzip's CRC32 then length. A flipped bit there fails only that check.
TEST_F(CopyCheck, ChecksumMismatchIsDamaged) {
  for (auto [tool, c, from_end] : {std::tuple{"zstd -q", Compression::kZstd, 1}, {"gzip", Compression::kGzip, 8}}) {
    auto copy = compressed(std::string(tool) + " -1 -c -- " + shell_quote(plain_.string()));
    std::string data = bytes(copy);
    data[data.size() - from_end] ^= 0x01;
    rewrite(copy, data);
    auto size = verified_size(copy, c, text_.size());
    ASSERT_FALSE(size.ok()) << tool;
    EXPECT_NE(size.error().message.find("is damaged"), std::string::npos) << size.error().message;
  }
}

TEST_F(CopyCheck, EmptyCopyIsDamagedPlainIsItsSize) {
  auto empty = dir_.write("empty", "");
  EXPECT_FALSE(verified_size(empty, Compression::kZstd, 100).ok());
  EXPECT_FALSE(verified_size(empty, Compression::kGzip, 100).ok());
  EXPECT_EQ(*verified_size(plain_, Compression::kNone, text_.size()), text_.size());
}

// A lying node's bomb: 64 MiB of zeros squeezed to a few KiB, for a file it listed
// as 64 KiB. Decompression stops right past the listed size instead of running on.
TEST_F(CopyCheck, DecompressionStopsPastTheListedSize) {
  for (auto [tool, c] : {std::pair{"zstd -q", Compression::kZstd}, {"gzip", Compression::kGzip}}) {
    auto copy = compressed("head -c 67108864 /dev/zero | " + std::string(tool) + " -1 -c");
    auto size = verified_size(copy, c, 65536);
    ASSERT_FALSE(size.ok()) << tool;
    EXPECT_NE(size.error().message.find("decompresses to more than the 65536 bytes the node listed"), std::string::npos)
        << size.error().message;
    EXPECT_TRUE(verified_size(copy, c, uint64_t{64} << 20).ok()) << tool;  // exactly the listed size passes
  }
  auto plain = verified_size(plain_, Compression::kNone, text_.size() - 1);
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.error().message.find("more than the"), std::string::npos) << plain.error().message;
}

TEST(CopyBound, CompressedCopyMayGrowALittle) {
  EXPECT_EQ(max_compressed_bytes(0), 65536u);
  EXPECT_EQ(max_compressed_bytes(6400), 6400u + 100u + 65536u);
}

}  // namespace
}  // namespace aorta::job
