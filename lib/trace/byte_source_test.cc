// .json.zst traces (issue 21, part 2): read through libzstd exactly as .json.gz is
// through zlib, with the same budget and the same kind of errors, naming the file.
#include "trace/byte_source.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include <gtest/gtest.h>

#include "tests/compress.h"
#include "tests/gunzip.h"
#include "tests/temp_dir.h"
#include "trace/trace_reader.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::trace {
namespace {

const std::filesystem::path kData = AORTA_TEST_DATA_DIR;

using aorta::testing::gunzip;

// Compressed at test time by libzstd and zlib themselves (tests/compress.h).
using aorta::testing::gzip_compress;
using aorta::testing::zstd_compress;

std::filesystem::path write_binary(const aorta::testing::TempDir& dir, const std::string& name, const std::string& bytes) {
  auto path = dir.path() / name;
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

TEST(ZstdTrace, EncodingIsDetectedFromTheContent) {
  aorta::testing::TempDir dir;
  EXPECT_EQ(detect_encoding(write_binary(dir, "a.json", "{}")), Compression::kNone);
  EXPECT_EQ(detect_encoding(kData / "h200-torch2.11-kineto-nccl_rank0.json.gz"), Compression::kGzip);
  EXPECT_EQ(detect_encoding(write_binary(dir, "b.json.zst", zstd_compress("{}"))), Compression::kZstd);
  // The name does not decide: zstd bytes under a .json name are still zstd.
  EXPECT_EQ(detect_encoding(write_binary(dir, "c.json", zstd_compress("{}"))), Compression::kZstd);
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

// A zstd frame written by hand (RFC 8878): no checksum, no content size, a 128 KiB
// window, and RLE blocks of 128 KiB of one byte, 4 bytes each: 32768:1, the
// format's largest ratio. `bytes` > 0.
std::string zstd_rle_frame(char byte, uint64_t bytes) {
  std::string out("\x28\xb5\x2f\xfd", 4);
  out += '\0';                        // frame header descriptor: nothing optional
  out += static_cast<char>(7 << 3);  // window descriptor: 2^(10 + 7) bytes
  constexpr uint64_t kBlock = 128u << 10;
  while (bytes > 0) {
    const uint64_t size = std::min(bytes, kBlock);
    bytes -= size;
    const uint32_t header = static_cast<uint32_t>(size << 3) | (1u << 1) | (bytes == 0 ? 1u : 0u);  // RLE; last?
    for (int shift : {0, 8, 16}) out += static_cast<char>((header >> shift) & 0xff);
    out += byte;
  }
  return out;
}

// Issue 29: a zstd whitespace bomb (32768:1) reached the parse stage, where the
// scan went through every byte of it: 1 GiB of spaces from 32 KB, and a file of 1 MB
// is 32 GiB. Wherever the spaces are, the stream stops at 1024 times its compressed
// size (and 32 MiB), with the file's error, long before its end.
TEST(ZstdTrace, WhitespaceBombStopsAtTheExpansionLimit) {
  struct Placement {
    const char* what;
    const char* before;
    const char* after;
  };
  const Placement placements[] = {
      {"before the value", "", R"({"traceEvents": []})"},
      {"between events", R"({"traceEvents": [{"ph":"X"},)", R"({"ph":"X"}]})"},
      {"between top-level keys", R"({"traceEvents": [],)", R"("x": 1})"},
      {"inside an event", R"({"traceEvents": [{"ph":"X",)", R"("name":"k"}]})"},
      {"after the value", R"({"traceEvents": []})", ""},
  };
  aorta::testing::TempDir dir;
  const std::string spaces = zstd_rle_frame(' ', uint64_t{1} << 30);
  ASSERT_EQ(spaces.size(), 6u + 8192u * 4u);
  for (const Placement& p : placements) {
    std::string bomb = std::string(p.before).empty() ? "" : zstd_compress(p.before);
    bomb += spaces;
    if (!std::string(p.after).empty()) bomb += zstd_compress(p.after);
    auto file = write_binary(dir, "bomb.json.zst", bomb);
    const auto begin = std::chrono::steady_clock::now();
    auto data = read_trace(file);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    ASSERT_FALSE(data.ok()) << p.what;
    EXPECT_NE(data.error().message.find("the zstd stream expands more than 1024 times its compressed size"),
              std::string::npos)
        << p.what << ": " << data.error().message;
    EXPECT_NE(data.error().context.find("bomb.json.zst"), std::string::npos) << p.what;
    EXPECT_LT(seconds, 1.5) << p.what;
  }
  // The same frame with a trace's worth of spaces (64 KiB of 4 MB) is read.
  std::string text = gunzip(kData / "h200-torch2.11-kineto-nccl_rank0.json.gz");
  const size_t comma = text.find("},") + 2;
  auto padded = write_binary(dir, "padded.json.zst", zstd_compress(text.substr(0, comma)) + zstd_rle_frame(' ', 64u << 10) +
                                                         zstd_compress(text.substr(comma)));
  auto data = read_trace(padded);
  ASSERT_TRUE(data.ok()) << data.error().describe();
  EXPECT_EQ(data->bytes, text.size() + (64u << 10));
}

// Issue 29: bytes after the last gzip member were passed over in silence, where
// zstd's are an error. Members one after another are one stream (gzip -d reads them
// so), anything else after the last member is an error naming its byte.
TEST(GzipTrace, ConcatenatedMembersAreReadAndTrailingBytesAreAnError) {
  aorta::testing::TempDir dir;
  const std::string text = gunzip(kData / "h200-torch2.11-kineto-nccl_rank0.json.gz");
  auto reference = read_trace(kData / "h200-torch2.11-kineto-nccl_rank0.json.gz");
  ASSERT_TRUE(reference.ok());
  const std::string whole = gzip_compress(text);
  const size_t third = text.size() / 3;
  struct Case {
    const char* what;
    std::string bytes;
    const char* error;  // empty: read as the reference
  };
  const Case cases[] = {
      {"one member", whole, ""},
      {"two members", gzip_compress(text.substr(0, third)) + gzip_compress(text.substr(third)), ""},
      {"an empty member between", gzip_compress(text.substr(0, third)) + gzip_compress("") + gzip_compress(text.substr(third)), ""},
      {"text after the member", whole + "garbage!", "trailing bytes after the last gzip member, at byte "},
      {"zeros after the member", whole + std::string(4, '\0'), "trailing bytes after the last gzip member, at byte "},
      {"half a magic number", whole + "\x1f", "trailing bytes after the last gzip member, at byte "},
      {"a member's header only", whole + std::string("\x1f\x8b", 2), "gzip stream is damaged"},
      {"a damaged second member", whole + std::string("\x1f\x8bgarbage!", 10), "gzip stream is damaged"},
  };
  for (const Case& c : cases) {
    auto file = write_binary(dir, "t.json.gz", c.bytes);
    ASSERT_EQ(detect_encoding(file), Compression::kGzip);
    auto data = read_trace(file);
    if (std::string(c.error).empty()) {
      ASSERT_TRUE(data.ok()) << c.what << ": " << data.error().describe();
      EXPECT_EQ(data->bytes, text.size()) << c.what;
      EXPECT_EQ(data->events, reference->events) << c.what;
      EXPECT_EQ(data->gpu_events.size(), reference->gpu_events.size()) << c.what;
      continue;
    }
    ASSERT_FALSE(data.ok()) << c.what;
    EXPECT_NE(data.error().message.find(c.error), std::string::npos) << c.what << ": " << data.error().message;
    EXPECT_NE(data.error().context.find("t.json.gz"), std::string::npos) << c.what;
    if (std::string(c.error).starts_with("trailing")) {
      EXPECT_NE(data.error().message.find("at byte " + std::to_string(whole.size()) + " of the file"), std::string::npos)
          << c.what << ": " << data.error().message;
    }
  }
}

// Issue 42, 6: a FIFO put where a listed trace was (after the listing) must not hold
// the read: a blocking open waits for a writer forever. Opened without waiting and
// refused as no regular file. Run in a child that an alarm ends, so a wait fails the
// test instead of hanging it.
TEST(ByteSource, AFifoIsRefusedWithoutWaitingForAWriter) {
  aorta::testing::TempDir dir;
  const auto fifo = dir.path() / "rank0.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::alarm(10);
    const bool refused = !ByteSource(fifo, 4096).open() && detect_encoding(fifo) == Compression::kNone;
    auto data = read_trace(fifo);
    ::_exit(refused && !data.ok() && data.error().context == fifo.string() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0)
                                 << ": the open waited for a writer";
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
}

}  // namespace
}  // namespace aorta::trace
