// .json.zst traces (issue 21, part 2): read through libzstd exactly as .json.gz is
// through zlib, with the same budget and the same kind of errors, naming the file.
#include "trace/byte_source.h"

#include <zlib.h>
#include <zstd.h>

#include <chrono>
#include <fstream>

#include <gtest/gtest.h>

#include "tests/gunzip.h"
#include "tests/temp_dir.h"
#include "trace/trace_reader.h"

namespace aorta::trace {
namespace {

const std::filesystem::path kData = AORTA_TEST_DATA_DIR;

using aorta::testing::gunzip;

// Compressed at test time by libzstd itself: level 1 with the content checksum, as
// `zstd -1` writes it for collection.
std::string zstd_compress(const std::string& text, int level = 1) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), text.data(), text.size());
  ZSTD_freeCCtx(cctx);
  EXPECT_FALSE(ZSTD_isError(n)) << ZSTD_getErrorName(n);
  out.resize(n);
  return out;
}

std::filesystem::path write_binary(const aorta::testing::TempDir& dir, const std::string& name, const std::string& bytes) {
  auto path = dir.path() / name;
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

TEST(ZstdTrace, EncodingIsDetectedFromTheContent) {
  aorta::testing::TempDir dir;
  EXPECT_EQ(detect_encoding(write_binary(dir, "a.json", "{}")), TraceEncoding::kPlain);
  EXPECT_EQ(detect_encoding(kData / "h200-torch2.11-kineto-nccl_rank0.json.gz"), TraceEncoding::kGzip);
  EXPECT_EQ(detect_encoding(write_binary(dir, "b.json.zst", zstd_compress("{}"))), TraceEncoding::kZstd);
  // The name does not decide: zstd bytes under a .json name are still zstd.
  EXPECT_EQ(detect_encoding(write_binary(dir, "c.json", zstd_compress("{}"))), TraceEncoding::kZstd);
}

TEST(ZstdTrace, EveryShippedTraceReadsAsItsGzipTwin) {
  aorta::testing::TempDir dir;
  for (const auto& entry : std::filesystem::directory_iterator(kData)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".json.gz")) continue;
    const std::string text = gunzip(entry.path());
    // Two frames for one of them: a file of concatenated frames is one stream.
    std::string zst = name.starts_with("h200-aorta-overlap_rank0")
                          ? zstd_compress(text.substr(0, text.size() / 3)) + zstd_compress(text.substr(text.size() / 3), 3)
                          : zstd_compress(text);
    auto zpath = write_binary(dir, name.substr(0, name.size() - 3) + ".zst", zst);
    auto g = read_trace(entry.path());
    auto z = read_trace(zpath);
    ASSERT_TRUE(g.ok()) << g.error().describe();
    ASSERT_TRUE(z.ok()) << name << ": " << z.error().describe();
    EXPECT_EQ(z->bytes, text.size()) << name;
    EXPECT_EQ(z->events, g->events) << name;
    EXPECT_EQ(z->rank, g->rank) << name;
    EXPECT_EQ(z->legacy_array, g->legacy_array) << name;
    ASSERT_EQ(z->gpu_events.size(), g->gpu_events.size()) << name;
    for (size_t i = 0; i < z->gpu_events.size(); ++i) {
      EXPECT_EQ(z->gpu_events[i].ts, g->gpu_events[i].ts);
      EXPECT_EQ(z->gpu_events[i].end, g->gpu_events[i].end);
    }
    EXPECT_EQ(z->keyed_events.size(), g->keyed_events.size()) << name;
    ASSERT_EQ(z->steps.size(), g->steps.size()) << name;
    for (size_t i = 0; i < z->steps.size(); ++i) {
      EXPECT_EQ(z->steps[i].number, g->steps[i].number) << name;
      EXPECT_EQ(z->steps[i].ts, g->steps[i].ts) << name;
      EXPECT_EQ(z->steps[i].dur, g->steps[i].dur) << name;
    }
    ASSERT_EQ(z->runtime_launches.size(), g->runtime_launches.size()) << name;
    for (size_t i = 0; i < z->runtime_launches.size(); ++i) EXPECT_EQ(z->runtime_launches[i].ts, g->runtime_launches[i].ts);
    for (size_t i = 0; i < z->gpu_events.size(); ++i) EXPECT_EQ(z->gpu_events[i].correlation, g->gpu_events[i].correlation);
    EXPECT_EQ(z->basic.total, g->basic.total) << name;
  }
}

TEST(ZstdTrace, TruncatedOrDamagedStreamNamesTheFile) {
  aorta::testing::TempDir dir;
  const std::string zst = zstd_compress(gunzip(kData / "h200-torch2.11-kineto-nccl_rank0.json.gz"));
  auto cut = read_trace(write_binary(dir, "cut.json.zst", zst.substr(0, zst.size() / 2)));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("zstd stream is damaged: the file ends inside a frame"), std::string::npos)
      << cut.error().message;
  EXPECT_NE(cut.error().context.find("cut.json.zst"), std::string::npos);
  // Cut just before the end: every byte but the last four (the frame's checksum).
  auto tail = read_trace(write_binary(dir, "tail.json.zst", zst.substr(0, zst.size() - 4)));
  ASSERT_FALSE(tail.ok());
  EXPECT_NE(tail.error().message.find("zstd stream is damaged"), std::string::npos) << tail.error().message;
  // A flipped byte in the frame's checksum: the content does not match it.
  std::string flipped = zst;
  flipped.back() = static_cast<char>(~flipped.back());
  auto damaged = read_trace(write_binary(dir, "damaged.json.zst", flipped));
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.error().message.find("zstd stream is damaged: Restored data doesn't match checksum"),
            std::string::npos)
      << damaged.error().message;
  EXPECT_NE(damaged.error().context.find("damaged.json.zst"), std::string::npos);
  // Flipped bytes mid-stream: libzstd's block checks or the JSON scan refuse the file
  // (a damaged block can decode to bytes that are not JSON before the checksum is seen).
  std::string middle = zst;
  for (size_t i = zst.size() / 2; i < zst.size() / 2 + 64; ++i) middle[i] = static_cast<char>(~middle[i]);
  auto garbled = read_trace(write_binary(dir, "garbled.json.zst", middle));
  ASSERT_FALSE(garbled.ok());
  EXPECT_NE(garbled.error().context.find("garbled.json.zst"), std::string::npos);
  // Garbage after the last frame is not a frame.
  auto trailing = read_trace(write_binary(dir, "trailing.json.zst", zst + "garbage!"));
  ASSERT_FALSE(trailing.ok());
  EXPECT_NE(trailing.error().message.find("zstd stream is damaged"), std::string::npos) << trailing.error().message;
}

// A zstd bomb: a few KB that decompress to 3 GiB of one string (concatenated frames
// are one stream, so one compressed 64 MiB frame is repeated). The reader stops at
// the token budget (1 MiB of a 16 MiB budget) with the file's error instead of
// decompressing it all or growing its buffer with it.
TEST(ZstdTrace, BombStopsAtTheBudget) {
  aorta::testing::TempDir dir;
  auto limits = TraceLimits::with_total(16u << 20);
  std::string bomb = zstd_compress(R"({"traceEvents": [{"ph":"X","cat":"kernel","name":")");
  const std::string frame = zstd_compress(std::string(64u << 20, 'n'), 19);
  for (int i = 0; i < 48; ++i) bomb += frame;
  bomb += zstd_compress(R"(","pid":0,"tid":1,"ts":0,"dur":5}]})");
  ASSERT_LT(bomb.size(), 1u << 20);
  auto file = write_binary(dir, "bomb.json.zst", bomb);
  const auto begin = std::chrono::steady_clock::now();
  auto data = read_trace(file, BasicScanMode::kInclude, limits);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  ASSERT_FALSE(data.ok());
  EXPECT_NE(data.error().message.find("traceEvents element at byte 17 is longer than the longest token the memory "
                                      "budget allows (1 MiB"),
            std::string::npos)
      << data.error().message;
  EXPECT_NE(data.error().context.find("bomb.json.zst"), std::string::npos);
  EXPECT_LT(seconds, 5.0);  // 3 GiB would take far longer on this machine

  // Millions of tiny events stop at the event-state budget the same way.
  std::string text = R"({"traceEvents": [)";
  for (int i = 0; i < 300000; ++i)
    text += std::string(i ? "," : "") + R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":1,"ts":)" +
            std::to_string(i) + R"(,"dur":1,"args":{"correlation":)" + std::to_string(i) + "}}";
  text += "]}";
  auto tiny = read_trace(write_binary(dir, "tiny.json.zst", zstd_compress(text)), BasicScanMode::kInclude, limits);
  ASSERT_FALSE(tiny.ok());
  EXPECT_NE(tiny.error().message.find("needs more event state than the memory budget allows (6 MiB of 16 MiB"),
            std::string::npos)
      << tiny.error().message;
  EXPECT_NE(tiny.error().context.find("tiny.json.zst"), std::string::npos);
}

}  // namespace
}  // namespace aorta::trace
