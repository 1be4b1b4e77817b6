// The streaming reader on damaged, hostile or out-of-budget input: each is refused
// with an error that names the file and, where it can, the byte.
#include "trace/trace_reader.h"

#include <zlib.h>

#include <fstream>

#include <gtest/gtest.h>

#include "tests/gunzip.h"
#include "tests/temp_dir.h"
#include "trace/timeline.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::trace {
namespace {

const std::filesystem::path kData = AORTA_TEST_DATA_DIR;

using aorta::testing::gunzip;

TEST(TraceReader, DamagedInputIsAClearError) {
  aorta::testing::TempDir dir;
  std::string text = gunzip(kData / "h200-torch2.11-kineto-nccl_rank0.json.gz");
  auto truncated = read_trace(dir.write("truncated.json", text.substr(0, text.size() / 2)));
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().message.find("truncated"), std::string::npos) << truncated.error().message;
  EXPECT_NE(truncated.error().context.find("truncated.json"), std::string::npos);

  auto empty = read_trace(dir.write("empty.json", ""));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("empty"), std::string::npos);

  auto corrupt = read_trace(dir.write("corrupt.json", R"({"traceEvents": [{"ph":"X","ts":1,"dur":NaN,"name":"k"}]})"));
  ASSERT_FALSE(corrupt.ok());
  EXPECT_NE(corrupt.error().message.find("not valid JSON"), std::string::npos) << corrupt.error().message;
  EXPECT_NE(corrupt.error().message.find("byte 17"), std::string::npos) << corrupt.error().message;

  // Elements of traceEvents must be objects, closed by '}'; the message names the byte.
  auto nested = read_trace(dir.write("nested.json", R"({"traceEvents": [{"ph":"X"}, [{"ph":"X"}]]})"));
  ASSERT_FALSE(nested.ok());
  EXPECT_NE(nested.error().message.find("element at byte 29 is an array"), std::string::npos)
      << nested.error().message;
  auto mismatched = read_trace(dir.write("mismatched.json", R"({"traceEvents": [{"ph":"X"]]})"));
  ASSERT_FALSE(mismatched.ok());
  EXPECT_NE(mismatched.error().message.find("element at byte 17 is an object closed by ']'"), std::string::npos)
      << mismatched.error().message;
  auto closed = read_trace(dir.write("closed.json", R"({"traceEvents": [{"ph":"X"}}})"));
  ASSERT_FALSE(closed.ok());
  EXPECT_NE(closed.error().message.find("traceEvents is closed by '}' at byte 27"), std::string::npos)
      << closed.error().message;

  auto missing = read_trace(dir.path() / "missing.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);

  // A truncated gzip stream is reported as such, not as a short trace.
  std::string gz;
  {
    std::ifstream in(kData / "h200-torch2.11-kineto-nccl_rank0.json.gz", std::ios::binary);
    gz.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto cut = read_trace(dir.write("cut.json.gz", gz.substr(0, gz.size() / 2)));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("gzip stream is damaged"), std::string::npos) << cut.error().message;
  // Flipped bytes mid-stream: zlib's checks catch them; the trace is not cut short there.
  std::string flipped = gz;
  for (size_t i = gz.size() / 2; i < gz.size() / 2 + 64; ++i) flipped[i] = static_cast<char>(~flipped[i]);
  auto damaged = read_trace(dir.write("damaged.json.gz", flipped));
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.error().message.find("gzip stream is damaged"), std::string::npos) << damaged.error().message;
}

TEST(TraceReader, GzipTraceThatFailsEarlyStopsTheInflatingThread) {
  // The JSON breaks in the first chunk of a 29 MB trace: the reader stops at once and
  // the thread inflating ahead is stopped with it (no hang, no leak under ASan).
  aorta::testing::TempDir dir;
  std::string text = gunzip(kData / "h200-aorta-overlap_rank0.pt.trace.json.gz");
  text[text.find("\"ph\"", 1000)] = '}';
  auto file = dir.path() / "early.json.gz";
  gzFile out = gzopen(file.c_str(), "wb1");
  gzwrite(out, text.data(), static_cast<unsigned>(text.size()));
  gzclose(out);
  auto data = read_trace(file);
  ASSERT_FALSE(data.ok());
  EXPECT_NE(data.error().message.find("at byte"), std::string::npos) << data.error().message;
}

TEST(TraceReader, NegativeDurationsAreSkippedAndCounted) {
  aorta::testing::TempDir dir;
  auto data = read_trace(dir.write("neg.json", R"({"traceEvents":[
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":1,"ts":0,"dur":-5},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":1,"ts":0,"dur":5}]})"));
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->negative_durations, 1u);
  EXPECT_EQ(data->gpu_events.size(), 1u);
}

// Ids past int64 (a pid of 1e300, a tid of 2^64 - 1): a cast was undefined (found by the
// fuzzer under UBSan) and made every such pid one; each is now kept by its text, so the
// first kernel's flow end names it and the second's (pid 2e300) does not.
TEST(TraceReader, IdsPastInt64AreKeptByTheirText) {
  aorta::testing::TempDir dir;
  auto data = read_trace(dir.write("huge.json", R"({"traceEvents": [
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":0,"dur":1,"args":{"correlation":1}},
    {"ph":"s","cat":"ac2g","name":"ac2g","id":1,"pid":100,"tid":100,"ts":0},
    {"ph":"f","cat":"ac2g","name":"ac2g","id":1,"pid":1e300,"tid":18446744073709551615,"ts":10,"bp":"e"},
    {"ph":"X","cat":"kernel","name":"a","pid":1e300,"tid":18446744073709551615,"ts":10,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":1,"dur":1,"args":{"correlation":2}},
    {"ph":"s","cat":"ac2g","name":"ac2g","id":2,"pid":100,"tid":100,"ts":1},
    {"ph":"f","cat":"ac2g","name":"ac2g","id":2,"pid":2e300,"tid":18446744073709551615,"ts":20,"bp":"e"},
    {"ph":"X","cat":"kernel","name":"b","pid":1e300,"tid":18446744073709551615,"ts":20,"dur":5,"args":{"correlation":2}}
  ]})"));
  ASSERT_TRUE(data.ok()) << data.error().describe();
  const std::vector<bool> selected = select_gpu_events(*data, KernelSelection::kLinkedOnly);
  ASSERT_EQ(selected.size(), 2u);
  EXPECT_TRUE(selected[0]);
  EXPECT_FALSE(selected[1]);
}

TEST(TraceReader, StringsWithBracesAndEscapesDoNotConfuseTheScanner) {
  aorta::testing::TempDir dir;
  auto data = read_trace(dir.write("esc.json", R"({"traceName": "x]}{[\"", "traceEvents":[
    {"ph":"X","cat":"kernel","name":"we\"ird}{][\\","pid":"GPU 0","tid":1,"ts":0,"dur":5,"args":{"n":{"deep":[1,{"x":"}"}]}}}],
    "distributedInfo": {"rank": 3, "world_size": 4}})"));
  ASSERT_TRUE(data.ok()) << data.error().describe();
  EXPECT_EQ(data->events, 1u);
  EXPECT_EQ(*data->rank, 3);
}

// Issue 14, item 9: what a JSON parser of the whole file refuses, the streaming scan
// refuses too, with the byte; before, each of these read as a good trace.
TEST(TraceReader, CorruptStructureIsNamedWithItsByte) {
  aorta::testing::TempDir dir;
  const std::string a = R"({"ph":"X","cat":"kernel","name":"a","pid":0,"tid":1,"ts":0,"dur":5})";
  const std::string b = R"({"ph":"X","cat":"kernel","name":"b","pid":0,"tid":1,"ts":9,"dur":5})";
  struct Case {
    const char* name;
    std::string text;
    const char* expected;
  };
  const Case cases[] = {
      {"garbage", R"({"traceEvents": [)" + a + ", xyz " + b + "]}", "garbage between traceEvents elements at byte 86"},
      {"number", R"({"traceEvents": [)" + a + ", 17, " + b + "]}", "garbage between traceEvents elements at byte 86"},
      {"missing_comma", R"({"traceEvents": [)" + a + "\n  " + b + "]}", "missing ',' before the traceEvents element at byte 87"},
      {"two_commas", R"({"traceEvents": [)" + a + ",," + b + "]}", "more than one ','"},
      {"leading_comma", R"({"traceEvents": [,)" + a + "]}", "',' before the first traceEvents element at byte 18"},
      {"trailing_comma", R"({"traceEvents": [)" + a + ",\n]}", "',' after the last traceEvents element"},
      {"trailing_garbage", R"({"traceEvents": [)" + a + "]}\n garbage", "trailing garbage at byte 88"},
      {"two_documents", R"({"traceEvents": [)" + a + "]}\n" + R"({"traceEvents": [)" + b + "]}",
       "a second JSON document starts at byte 87"},
      {"duplicate_key", R"({"traceEvents": [)" + a + R"(], "traceEvents": [)" + b + "]}",
       "duplicate top-level key 'traceEvents'"},
      {"duplicate_info", R"({"distributedInfo": {"rank": 0}, "traceEvents": [], "distributedInfo": {"rank": 1}})",
       "duplicate top-level key 'distributedInfo'"},
      {"leading_garbage", "xx" R"({"traceEvents": [)" + a + "]}", "garbage at byte 0, before the top-level"},
      {"legacy_garbage", "[" + a + "; " + b + "]", "garbage between traceEvents elements at byte 68"},
      {"legacy_trailing", "[" + a + "]]", "trailing garbage at byte 69"},
  };
  for (const auto& c : cases) {
    auto data = read_trace(dir.write(std::string(c.name) + ".json", c.text));
    EXPECT_FALSE(data.ok()) << c.name << " was read as a trace";
    if (data.ok()) continue;
    EXPECT_NE(data.error().message.find(c.expected), std::string::npos) << c.name << ": " << data.error().message;
    EXPECT_NE(data.error().context.find(c.name), std::string::npos) << c.name;
  }
  // Whitespace of every kind between and after events, and a trailing newline, are fine.
  auto spaced = read_trace(dir.write("spaced.json", "\n\t" R"({"traceEvents": [ )" + a + " \r\n,\t" + b + " \n] }\n\n"));
  ASSERT_TRUE(spaced.ok()) << spaced.error().describe();
  EXPECT_EQ(spaced->events, 2u);
}

TEST(TraceReader, GarbageBetweenEventsAcrossReadChunksIsFound) {
  // A gap that straddles the 4 MiB read boundary is checked in two parts.
  aorta::testing::TempDir dir;
  const std::string event = R"({"ph":"X","cat":"kernel","name":"a","pid":0,"tid":1,"ts":0,"dur":5})";
  std::string text = R"({"traceEvents": [)" + event;
  while (text.size() < (4u << 20) - 3) text += ",\n" + event;
  text += std::string(8, ' ') + "?" + std::string(8, ' ') + "," + event + "]}";
  auto data = read_trace(dir.write("straddle.json", text));
  ASSERT_FALSE(data.ok());
  EXPECT_NE(data.error().message.find("garbage between traceEvents elements at byte " +
                                      std::to_string(text.find('?'))),
            std::string::npos)
      << data.error().message;
}

// Issue 14, item 9: a rank that cannot be one of the run's is refused, not truncated
// into an int or trusted.
TEST(TraceReader, DistributedInfoOutOfRangeIsRefused) {
  aorta::testing::TempDir dir;
  auto with_info = [&](const std::string& name, const std::string& info) {
    return read_trace(dir.write(name + ".json", R"({"distributedInfo": )" + info +
                                                    R"(, "traceEvents": [{"ph":"X","cat":"kernel","ts":0,"dur":1}]})"));
  };
  auto ok = with_info("ok", R"({"rank": 1, "world_size": 2})");
  ASSERT_TRUE(ok.ok()) << ok.error().describe();
  EXPECT_EQ(*ok->rank, 1);
  const std::pair<const char*, const char*> bad[] = {
      {R"({"rank": 2, "world_size": 2})", "distributedInfo.rank 2 is out of range (0 to 1, world_size 2)"},
      {R"({"rank": -1, "world_size": 2})", "distributedInfo.rank -1 is out of range"},
      {R"({"rank": 4294967296})", "distributedInfo.rank 4294967296 is out of range (0 to 16777215)"},
      {R"({"rank": 0, "world_size": 0})", "distributedInfo.world_size 0 is out of range"},
  };
  int i = 0;
  for (const auto& [info, expected] : bad) {
    auto data = with_info("bad" + std::to_string(i++), info);
    ASSERT_FALSE(data.ok()) << info;
    EXPECT_NE(data.error().message.find(expected), std::string::npos) << data.error().message;
    EXPECT_NE(data.error().context.find("bad"), std::string::npos);
  }
}

// Issue 14, item 3: one event longer than the budget's longest token (here 1 MiB of a
// 16 MiB budget) is this file's error; before, the read buffer grew with it.
TEST(TraceReader, EventLongerThanTheTokenLimitIsRefused) {
  aorta::testing::TempDir dir;
  auto limits = TraceLimits::with_total(16u << 20);
  ASSERT_EQ(limits.max_token_bytes, 1u << 20);
  auto event = [](size_t name_bytes) {
    return R"({"ph":"X","cat":"kernel","name":")" + std::string(name_bytes, 'n') + R"(","pid":0,"tid":1,"ts":0,"dur":5})";
  };
  auto fits = read_trace(dir.write("fits.json", R"({"traceEvents": [)" + event(900u << 10) + "]}"),
                         BasicScanMode::kInclude, limits);
  ASSERT_TRUE(fits.ok()) << fits.error().describe();
  // Past one 4 MiB read chunk, so the buffer would have had to grow.
  auto big = read_trace(dir.write("big.json", R"({"traceEvents": [)" + event(6u << 20) + "]}"),
                        BasicScanMode::kInclude, limits);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("traceEvents element at byte 17 is longer than the longest token the memory "
                                     "budget allows (1 MiB"),
            std::string::npos)
      << big.error().message;
  auto info = read_trace(dir.write("info.json", R"({"distributedInfo": ")" + std::string(6u << 20, 'i') + R"("})"),
                         BasicScanMode::kInclude, limits);
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.error().message.find("value of top-level key 'distributedInfo' is longer"), std::string::npos)
      << info.error().message;
}

// Issue 14, item 3: millions of tiny events stop at the event-state budget (3/8 of
// the total: 6 MiB of 16 MiB here) with the file's error.
TEST(TraceReader, EventStateBeyondTheBudgetIsRefused) {
  aorta::testing::TempDir dir;
  auto limits = TraceLimits::with_total(16u << 20);
  std::string text = R"({"traceEvents": [)";
  for (int i = 0; i < 300000; ++i)
    text += std::string(i ? "," : "") + R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":1,"ts":)" +
            std::to_string(i) + R"(,"dur":1,"args":{"correlation":)" + std::to_string(i) + "}}";
  text += "]}";
  auto file = dir.write("tiny.json", text);
  auto data = read_trace(file, BasicScanMode::kInclude, limits);
  ASSERT_FALSE(data.ok());
  EXPECT_NE(data.error().message.find("needs more event state than the memory budget allows (6 MiB of 16 MiB"),
            std::string::npos)
      << data.error().message;
  EXPECT_NE(data.error().context.find("tiny.json"), std::string::npos);
  auto defaults = read_trace(file);  // 300k events are nothing for the default budget
  ASSERT_TRUE(defaults.ok()) << defaults.error().describe();
  EXPECT_EQ(defaults->gpu_events.size(), 300000u);
}

// Issue 29: a flood of ProfilerStep annotations (1.8 GB of RSS under a 256M budget)
// and of CPU events count at what the analysis makes of them (trace_limits.h): 512
// and 128 bytes, so 6 MiB hold 12,288 steps or 49,152 CPU events.
TEST(TraceReader, StepAndCpuEventFloodsAreRefusedByTheBudget) {
  aorta::testing::TempDir dir;
  auto limits = TraceLimits::with_total(16u << 20);
  ASSERT_EQ(limits.max_state_bytes, 6u << 20);
  auto steps = [](int n) {
    std::string text = R"({"traceEvents": [)";
    for (int i = 0; i < n; ++i)
      text += std::string(i ? "," : "") + R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" +
              std::to_string(i) + R"(","pid":1,"tid":1,"ts":)" + std::to_string(i * 10) + R"(,"dur":10})";
    return text + "]}";
  };
  auto flood = dir.write("flood.json", steps(20000));  // 2 MB: one read chunk, one budget check
  auto gpu_read = read_trace(flood, BasicScanMode::kSkip, limits);
  ASSERT_FALSE(gpu_read.ok());
  EXPECT_NE(gpu_read.error().message.find("needs more event state than the memory budget allows (6 MiB of 16 MiB, "
                                          "reached after 0 GPU events and 0 keyed events and 20000 ProfilerStep "
                                          "annotations; AORTA_TRACE_MEMORY_LIMIT raises it)"),
            std::string::npos)
      << gpu_read.error().message;
  EXPECT_NE(gpu_read.error().context.find("flood.json"), std::string::npos);
  // The full read keeps them as CPU events too: 20000 x (512 + 128).
  auto full_read = read_trace(flood, BasicScanMode::kInclude, limits);
  ASSERT_FALSE(full_read.ok());
  EXPECT_NE(full_read.error().message.find("and 20000 CPU events and 20000 ProfilerStep annotations"), std::string::npos)
      << full_read.error().message;
  // 8000 x (512 + 128) = 5,120,000 bytes fit.
  auto fits = read_trace(dir.write("fits.json", steps(8000)), BasicScanMode::kInclude, limits);
  ASSERT_TRUE(fits.ok()) << fits.error().describe();
  EXPECT_EQ(fits->steps.size(), 8000u);

  std::string ops = R"({"traceEvents": [)";
  for (int i = 0; i < 50000; ++i)  // 3.9 MB: one read chunk
    ops += std::string(i ? "," : "") + R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":)" +
           std::to_string(i * 10) + R"(,"dur":5})";
  auto cpu = read_trace(dir.write("ops.json", ops + "]}"), BasicScanMode::kInclude, limits);
  ASSERT_FALSE(cpu.ok());
  EXPECT_NE(cpu.error().message.find("and 50000 CPU events;"), std::string::npos) << cpu.error().message;
}

}  // namespace
}  // namespace aorta::trace
