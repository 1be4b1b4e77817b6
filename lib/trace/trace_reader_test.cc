// The streaming reader on the real traces in tests/data and on damaged input.
#include "trace/trace_reader.h"

#include <zlib.h>

#include <gtest/gtest.h>

#include "tests/gunzip.h"
#include "tests/temp_dir.h"
#include "trace/kernel_class.h"
#include "trace/event_scanner.h"
#include "trace/timeline.h"

namespace aorta::trace {
namespace {

const std::filesystem::path kData = AORTA_TEST_DATA_DIR;

using aorta::testing::gunzip;

TEST(TraceReader, RealH200KinetoTraceStreamsAcrossChunks) {
  // 29 MB unzipped: several 4 MiB read chunks, events split across chunk ends.
  auto data = read_trace(kData / "h200-aorta-overlap_rank0.pt.trace.json.gz");
  ASSERT_TRUE(data.ok()) << data.error().describe();
  // Counts by Python's json.load of the same file: 98957 events, of which
  // 4356 kernel + 244 gpu_memcpy + 488 gpu_memset.
  EXPECT_EQ(data->events, 98957u);
  EXPECT_EQ(data->gpu_events.size(), 4356u + 244u + 488u);
  EXPECT_FALSE(data->legacy_array);
  ASSERT_TRUE(data->rank.has_value());
  EXPECT_EQ(*data->rank, 0);
  EXPECT_EQ(*data->world_size, 2);
  EXPECT_TRUE(*data->link_by_correlation);
  auto rank1 = read_trace(kData / "h200-aorta-overlap_rank1.pt.trace.json.gz");
  ASSERT_TRUE(rank1.ok());
  EXPECT_EQ(*rank1->rank, 1);
}

TEST(TraceReader, PlainAndGzipReadTheSame) {
  aorta::testing::TempDir dir;
  auto plain = dir.write("rank1.json", gunzip(kData / "h200-torch2.11-kineto-nccl_rank1.json.gz"));
  auto a = read_trace(plain);
  auto b = read_trace(kData / "h200-torch2.11-kineto-nccl_rank1.json.gz");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->events, b->events);
  EXPECT_EQ(a->gpu_events.size(), b->gpu_events.size());
  EXPECT_EQ(a->bytes, b->bytes);
}

// ProfilerStep#N, the CPU annotations only: each of these traces also holds three
// GPU-side copies of every step (cat gpu_user_annotation), which are not steps.
// Expected values: `zcat FILE | grep -A1 '"user_annotation", "name": "ProfilerStep#'`.
TEST(TraceReader, ProfilerStepAnnotationsOfTheRealH200Trace) {
  for (auto mode : {BasicScanMode::kSkip, BasicScanMode::kInclude}) {
    auto data = read_trace(kData / "h200-aorta-overlap_rank0.pt.trace.json.gz", mode);
    ASSERT_TRUE(data.ok()) << data.error().describe();
    ASSERT_EQ(data->steps.size(), 4u);
    EXPECT_EQ(data->steps[0].number, 3);
    EXPECT_EQ(data->steps[0].ts, 5227564059877.575);
    EXPECT_EQ(data->steps[0].dur, 235769.665);
    EXPECT_EQ(data->steps[3].number, 6);
  }
  // torch 1.13's bare array: no cat, name first.
  auto legacy = read_trace(kData / "debian-torch1.13-gloo-legacy_rank0.json.gz", BasicScanMode::kSkip);
  ASSERT_TRUE(legacy.ok());
  ASSERT_GE(legacy->steps.size(), 3u);
  EXPECT_EQ(legacy->steps[0].number, 1);
  EXPECT_EQ(legacy->steps[0].ts, 125);
  EXPECT_EQ(legacy->steps[0].dur, 16019);
  EXPECT_EQ(legacy->steps[2].number, 3);
  EXPECT_EQ(legacy->steps[2].dur, 12601);
  // None in the torch 2.11 traces (profiled without a schedule).
  auto none = read_trace(kData / "h200-torch2.11-kineto-nccl_rank0.json.gz", BasicScanMode::kSkip);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->steps.empty());
}

// Only a complete CPU event named exactly ProfilerStep#<digits> is a step.
TEST(TraceReader, OnlyCpuProfilerStepEventsAreSteps) {
  aorta::testing::TempDir dir;
  auto file = dir.write("t.json", R"({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#7", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#7", "pid": 0, "tid": 7, "ts": 11, "dur": 5},
    {"ph": "B", "cat": "user_annotation", "name": "ProfilerStep#8", "pid": 1, "tid": 1, "ts": 20},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#9x", "pid": 1, "tid": 1, "ts": 30, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#", "pid": 1, "tid": 1, "ts": 40, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep\u00239", "pid": 1, "tid": 1, "ts": 50, "dur": 1},
    {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#10", "pid": 1, "tid": 1, "ts": 60, "dur": 2.5}
  ]})");
  for (auto mode : {BasicScanMode::kSkip, BasicScanMode::kInclude}) {
    auto data = read_trace(file, mode);
    ASSERT_TRUE(data.ok()) << data.error().describe();
    // The escaped '#' is a step name once decoded, in both reads (issue 29).
    ASSERT_EQ(data->steps.size(), 3u);
    EXPECT_EQ(data->steps[1].number, 9);
    EXPECT_EQ(data->steps.front().number, 7);
    EXPECT_EQ(data->steps.back().number, 10);
    EXPECT_EQ(data->steps.back().dur, 2.5);
  }
}

// Issue 29: a writer may order an event's keys as it likes and escape any character
// of a string; every spelling of ProfilerStep#3 [100, 150) and #4 [150, 200) is those
// two steps, in both reads (the GPU-timeline-only read once dropped "dur" before
// "name", and did not decode escapes).
TEST(TraceReader, EverySpellingOfAStepAnnotationIsOneStep) {
  struct Spelling {
    const char* what;
    const char* event;  // {N} the step number, {T} its ts
  };
  const Spelling spellings[] = {
      {"Kineto's order", R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#{N}","pid":1,"tid":1,"ts":{T},"dur":50,"args":{"External id":{N}}})"},
      {"sorted keys", R"({"args":{"External id":{N}},"cat":"user_annotation","dur":50,"name":"ProfilerStep#{N}","ph":"X","pid":1,"tid":1,"ts":{T}})"},
      {"escaped '#'", R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep\u0023{N}","pid":1,"tid":1,"ts":{T},"dur":50})"},
      {"sorted and escaped", R"({"args":{},"cat":"user_annotation","dur":50,"name":"ProfilerStep\u0023{N}","ph":"X","pid":1,"tid":1,"ts":{T}})"},
      {"every kind of escape", R"({"ph":"X","cat":"cpu_op","name":"\u0050rofiler\u0053tep\u0023{N}","pid":1,"tid":1,"ts":{T},"dur":50})"},
      {"ts and dur first", R"({"ts":{T},"dur":50,"ph":"X","cat":"cpu_op","name":"ProfilerStep#{N}","pid":1,"tid":1})"},
      {"cat last", R"({"name":"ProfilerStep#{N}","ph":"X","ts":{T},"dur":50,"pid":1,"tid":1,"cat":"user_annotation"})"},
      {"spaces", R"({ "ph" : "X" , "cat" : "user_annotation" , "name" : "ProfilerStep#{N}" , "pid" : 1 , "tid" : 1 , "ts" : {T} , "dur" : 50 })"},
  };
  auto spell = [](std::string event, int number, int ts) {
    for (auto [key, value] : {std::pair<std::string, std::string>{"{N}", std::to_string(number)}, {"{T}", std::to_string(ts)}})
      for (size_t at; (at = event.find(key)) != std::string::npos;) event.replace(at, key.size(), value);
    return event;
  };
  aorta::testing::TempDir dir;
  for (const Spelling& s : spellings) {
    // Not steps, in the same spelling: a kernel keeps the GPU timeline busy, and
    // names that only look like a step once read carelessly.
    const std::string text = R"({"traceEvents": [)" + spell(s.event, 3, 100) + "," + spell(s.event, 4, 150) + "," +
                             R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":120,"dur":5},)" +
                             R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep\u0023","pid":1,"tid":1,"ts":1,"dur":1},)" +
                             R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep\u00235x","pid":1,"tid":1,"ts":2,"dur":1},)" +
                             R"({"ph":"X","cat":"user_annotation","name":"P\"rofilerStep#5","pid":1,"tid":1,"ts":3,"dur":1}]})";
    auto file = dir.write("t.json", text);
    for (auto mode : {BasicScanMode::kSkip, BasicScanMode::kInclude}) {
      auto data = read_trace(file, mode);
      ASSERT_TRUE(data.ok()) << s.what << ": " << data.error().describe();
      ASSERT_EQ(data->steps.size(), 2u) << s.what << (mode == BasicScanMode::kSkip ? " (GPU read)" : " (full read)");
      EXPECT_EQ(data->steps[0].number, 3) << s.what;
      EXPECT_EQ(data->steps[0].ts, 100) << s.what;
      EXPECT_EQ(data->steps[0].dur, 50) << s.what;
      EXPECT_EQ(data->steps[1].number, 4) << s.what;
      EXPECT_EQ(data->steps[1].ts, 150) << s.what;
    }
  }
}

// Issue 29: an exact duplicate annotation is one step; one inside another's span is
// no step of its own (it would take the rest of the outer step's launches and count
// its time twice) and is reported; steps that only overlap or touch are both kept.
TEST(TraceReader, DuplicateAndNestedStepAnnotations) {
  struct Step {
    int64_t number;
    double ts, dur;
  };
  struct Case {
    const char* what;
    std::vector<Step> written;  // in file order
    std::vector<Step> kept;     // by start
    uint64_t duplicates, nested;
  };
  const Case cases[] = {
      {"exact duplicate", {{3, 100, 50}, {3, 100, 50}, {4, 150, 50}}, {{3, 100, 50}, {4, 150, 50}}, 1, 0},
      {"three copies", {{3, 100, 50}, {3, 100, 50}, {3, 100, 50}}, {{3, 100, 50}}, 2, 0},
      {"nested", {{3, 100, 100}, {9, 120, 20}, {4, 200, 100}}, {{3, 100, 100}, {4, 200, 100}}, 0, 1},
      {"nested, written first", {{9, 120, 20}, {3, 100, 100}}, {{3, 100, 100}}, 0, 1},
      {"nested to the outer's end", {{3, 100, 100}, {9, 150, 50}}, {{3, 100, 100}}, 0, 1},
      {"nested from the outer's start", {{3, 100, 100}, {9, 100, 50}}, {{3, 100, 100}}, 0, 1},
      {"same span, another number", {{3, 100, 100}, {4, 100, 100}}, {{3, 100, 100}}, 0, 1},
      {"a duplicate of the outer after a nested one", {{3, 100, 100}, {4, 100, 100}, {3, 100, 100}}, {{3, 100, 100}}, 1, 1},
      {"overlapping, not nested", {{3, 100, 100}, {4, 190, 100}}, {{3, 100, 100}, {4, 190, 100}}, 0, 0},
      {"touching", {{3, 100, 100}, {4, 200, 100}}, {{3, 100, 100}, {4, 200, 100}}, 0, 0},
      {"no length, at the end", {{3, 100, 100}, {4, 200, 0}}, {{3, 100, 100}, {4, 200, 0}}, 0, 0},
      {"out of order", {{4, 150, 50}, {3, 100, 50}}, {{3, 100, 50}, {4, 150, 50}}, 0, 0},
      {"same number, another time", {{3, 100, 50}, {3, 300, 50}}, {{3, 100, 50}, {3, 300, 50}}, 0, 0},
  };
  aorta::testing::TempDir dir;
  for (const Case& c : cases) {
    std::string text = R"({"traceEvents": [)";
    for (size_t i = 0; i < c.written.size(); ++i)
      text += std::string(i ? "," : "") + R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" +
              std::to_string(c.written[i].number) + R"(","pid":1,"tid":1,"ts":)" + std::to_string(c.written[i].ts) +
              R"(,"dur":)" + std::to_string(c.written[i].dur) + "}";
    auto file = dir.write("t.json", text + "]}");
    for (auto mode : {BasicScanMode::kSkip, BasicScanMode::kInclude}) {
      auto data = read_trace(file, mode);
      ASSERT_TRUE(data.ok()) << c.what << ": " << data.error().describe();
      ASSERT_EQ(data->steps.size(), c.kept.size()) << c.what;
      for (size_t i = 0; i < c.kept.size(); ++i) {
        EXPECT_EQ(data->steps[i].number, c.kept[i].number) << c.what << " #" << i;
        EXPECT_EQ(data->steps[i].ts, c.kept[i].ts) << c.what << " #" << i;
        EXPECT_EQ(data->steps[i].dur, c.kept[i].dur) << c.what << " #" << i;
      }
      EXPECT_EQ(data->dropped_steps.duplicates, c.duplicates) << c.what;
      EXPECT_EQ(data->dropped_steps.nested, c.nested) << c.what;
    }
  }
  // The first of each is kept for the warning.
  aorta::testing::TempDir d2;
  auto data = read_trace(d2.write("t.json", R"({"traceEvents": [
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#3","pid":1,"tid":1,"ts":100,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#9","pid":1,"tid":1,"ts":120,"dur":20},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#4","pid":1,"tid":1,"ts":200,"dur":100},
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#4","pid":1,"tid":1,"ts":200,"dur":100}]})"));
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->dropped_steps.first_nested.number, 9);
  EXPECT_EQ(data->dropped_steps.first_nested.ts, 120);
  EXPECT_EQ(data->dropped_steps.first_nested_in.number, 3);
  EXPECT_EQ(data->dropped_steps.first_duplicate.number, 4);
  EXPECT_EQ(data->dropped_steps.first_duplicate.ts, 200);
}

TEST(TraceReader, LegacyBareArrayFromDebianTorch) {
  auto data = read_trace(kData / "debian-torch1.13-gloo-legacy_rank0.json.gz");
  ASSERT_TRUE(data.ok()) << data.error().describe();
  EXPECT_TRUE(data->legacy_array);
  EXPECT_EQ(data->events, 564u);  // Python: len(json.load(...)) == 564
  EXPECT_TRUE(data->gpu_events.empty());
  EXPECT_FALSE(data->rank.has_value());  // no distributedInfo: the path must tell
  EXPECT_GT(data->basic.total, 0);
  EXPECT_GT(data->basic.comm, 0);
}

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

TEST(TraceLimits, SizesAndTheEnvironment) {
  EXPECT_EQ(*parse_byte_size("4G"), uint64_t{4} << 30);
  EXPECT_EQ(*parse_byte_size("512M"), uint64_t{512} << 20);
  EXPECT_EQ(*parse_byte_size("2GiB"), uint64_t{2} << 30);
  EXPECT_EQ(*parse_byte_size("33554432"), uint64_t{32} << 20);
  EXPECT_FALSE(parse_byte_size("4X").ok());
  EXPECT_FALSE(parse_byte_size("").ok());
  EXPECT_FALSE(parse_byte_size("-1G").ok());
  EXPECT_FALSE(parse_byte_size("99999999999999999999").ok());
  EXPECT_FALSE(parse_byte_size("1M").ok());  // below the smallest budget
  TraceLimits d;
  EXPECT_EQ(d.max_token_bytes, uint64_t{64} << 20);
  EXPECT_EQ(d.max_state_bytes, uint64_t{1536} << 20);
  auto big = TraceLimits::with_total(uint64_t{16} << 30);
  EXPECT_EQ(big.max_token_bytes, uint64_t{64} << 20);
  EXPECT_EQ(big.max_state_bytes, uint64_t{6} << 30);
  ::setenv(kMemoryLimitVariable, "256M", 1);
  auto from_env = trace_limits_from_environment();
  ::setenv(kMemoryLimitVariable, "lots", 1);
  auto bad = trace_limits_from_environment();
  ::unsetenv(kMemoryLimitVariable);
  ASSERT_TRUE(from_env.ok());
  EXPECT_EQ(from_env->total_bytes, uint64_t{256} << 20);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().describe().find("AORTA_TRACE_MEMORY_LIMIT: 'lots' is not a byte size"), std::string::npos);
}

TEST(KernelClass, TraceLensRules) {
  EXPECT_EQ(classify_gpu_event("gpu_memcpy", "Memcpy HtoD"), GpuClass::kMemcpy);
  EXPECT_EQ(classify_gpu_event("kernel", "__amd_rocclr_copyBufferRectAligned.kd"), GpuClass::kMemcpy);
  EXPECT_EQ(classify_gpu_event("kernel", "MEMORY_COPY_DEVICE_TO_HOST"), GpuClass::kMemcpy);
  EXPECT_EQ(classify_gpu_event("kernel", "MEMORY_COPY_SIDEWAYS"), GpuClass::kComputation);
  EXPECT_EQ(classify_gpu_event("kernel", "__amd_rocclr_fillBufferAligned.kd"), GpuClass::kComputation);
  EXPECT_EQ(classify_gpu_event("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL"), GpuClass::kCommunication);
  EXPECT_EQ(classify_gpu_event("kernel", "rcclGenericKernel"), GpuClass::kCommunication);
  EXPECT_EQ(classify_gpu_event("kernel", "NCCLKERNEL"), GpuClass::kCommunication);
  EXPECT_EQ(classify_gpu_event("kernel", "void cross_device_reduce_1stage<float>"), GpuClass::kCommunication);
  EXPECT_EQ(classify_gpu_event("kernel", "mscclKernel_Sum"), GpuClass::kComputation);
  EXPECT_EQ(classify_gpu_event("gpu_memset", "Memset (Device)"), GpuClass::kComputation);
  EXPECT_EQ(classify_gpu_event("kernel", "Cijk_Alik_Bljk_HHS_BH"), GpuClass::kComputation);
}

TEST(KernelClass, BasicScanRules) {
  EXPECT_EQ(classify_basic("", "c10d::allreduce_"), BasicClass::kCommunication);
  EXPECT_EQ(classify_basic("cpu_op", "nccl:all_reduce"), BasicClass::kCommunication);
  EXPECT_EQ(classify_basic("", "gloo:all_reduce"), BasicClass::kOther);  // no rule names it
  EXPECT_EQ(classify_basic("gpu_memcpy", "Memcpy DtoD"), BasicClass::kMemory);
  EXPECT_EQ(classify_basic("kernel", "Cijk"), BasicClass::kComputeKernel);
  EXPECT_EQ(classify_basic("GPU", "x"), BasicClass::kComputeGpu);
}

}  // namespace
}  // namespace aorta::trace

// Issue 21, part 3: one plain file split across threads reads as a whole read does.
namespace aorta::trace {
namespace {

struct Read {
  TraceData data;
  Breakdown breakdown;
  std::vector<bool> selected;
};

Read read_split(const std::filesystem::path& file, unsigned parts, uint64_t min_part_bytes = 1) {
  auto data = read_trace(file, BasicScanMode::kSkip, {}, TraceSplit{parts, min_part_bytes});
  EXPECT_TRUE(data.ok()) << data.error().describe();
  if (!data.ok()) return {};
  Read r{std::move(*data), {}, {}};
  r.breakdown = gpu_breakdown(r.data, KernelSelection::kLinkedOnly);
  r.selected = select_gpu_events(r.data, KernelSelection::kLinkedOnly);
  return r;
}

void expect_same_steps(const TraceData& a, const TraceData& b, const std::string& what) {
  ASSERT_EQ(a.steps.size(), b.steps.size()) << what;
  for (size_t i = 0; i < a.steps.size(); ++i) {
    EXPECT_EQ(a.steps[i].number, b.steps[i].number) << what;
    EXPECT_EQ(a.steps[i].ts, b.steps[i].ts) << what;
    EXPECT_EQ(a.steps[i].dur, b.steps[i].dur) << what;
  }
}

void expect_same(const Read& a, const Read& b, const std::string& what) {
  EXPECT_EQ(a.data.events, b.data.events) << what;
  EXPECT_EQ(a.data.bytes, b.data.bytes) << what;
  EXPECT_EQ(a.data.rank, b.data.rank) << what;
  EXPECT_EQ(a.data.world_size, b.data.world_size) << what;
  EXPECT_EQ(a.data.legacy_array, b.data.legacy_array) << what;
  EXPECT_EQ(a.data.link_by_correlation, b.data.link_by_correlation) << what;
  EXPECT_EQ(a.data.negative_durations, b.data.negative_durations) << what;
  ASSERT_EQ(a.data.gpu_events.size(), b.data.gpu_events.size()) << what;
  for (size_t i = 0; i < a.data.gpu_events.size(); ++i) {
    EXPECT_EQ(a.data.gpu_events[i].ts, b.data.gpu_events[i].ts);
    EXPECT_EQ(a.data.gpu_events[i].end, b.data.gpu_events[i].end);
    EXPECT_EQ(a.data.gpu_events[i].cls, b.data.gpu_events[i].cls);
  }
  ASSERT_EQ(a.data.keyed_events.size(), b.data.keyed_events.size()) << what;
  for (size_t i = 0; i < a.data.keyed_events.size(); ++i) {
    EXPECT_EQ(a.data.keyed_events[i].thread, b.data.keyed_events[i].thread);
    EXPECT_EQ(a.data.keyed_events[i].key, b.data.keyed_events[i].key);
    EXPECT_EQ(a.data.keyed_events[i].gpu_index, b.data.keyed_events[i].gpu_index);
  }
  ASSERT_EQ(a.data.runtime_launches.size(), b.data.runtime_launches.size()) << what;
  for (size_t i = 0; i < a.data.runtime_launches.size(); ++i) {
    EXPECT_EQ(a.data.runtime_launches[i].correlation, b.data.runtime_launches[i].correlation);
    EXPECT_EQ(a.data.runtime_launches[i].ts, b.data.runtime_launches[i].ts);
  }
  for (size_t i = 0; i < a.data.gpu_events.size(); ++i)
    EXPECT_EQ(a.data.gpu_events[i].correlation, b.data.gpu_events[i].correlation);
  expect_same_steps(a.data, b.data, what);
  EXPECT_TRUE(std::equal(a.data.flow_starts.begin(), a.data.flow_starts.end(), b.data.flow_starts.begin(),
                         b.data.flow_starts.end()))
      << what;
  ASSERT_EQ(a.data.flow_ends.size(), b.data.flow_ends.size()) << what;
  for (size_t i = 0; i < a.data.flow_ends.size(); ++i) {
    EXPECT_EQ(a.data.flow_ends[i].id, b.data.flow_ends[i].id);
    EXPECT_EQ(a.data.flow_ends[i].thread, b.data.flow_ends[i].thread);
  }
  EXPECT_EQ(a.selected, b.selected) << what;
  EXPECT_EQ(a.breakdown.selected_events, b.breakdown.selected_events) << what;
  // Bit for bit: the same doubles, not nearly the same.
  EXPECT_EQ(a.breakdown.computation_time, b.breakdown.computation_time) << what;
  EXPECT_EQ(a.breakdown.total_comm_time, b.breakdown.total_comm_time) << what;
  EXPECT_EQ(a.breakdown.exposed_comm_time, b.breakdown.exposed_comm_time) << what;
  EXPECT_EQ(a.breakdown.total_memcpy_time, b.breakdown.total_memcpy_time) << what;
  EXPECT_EQ(a.breakdown.busy_time, b.breakdown.busy_time) << what;
  EXPECT_EQ(a.breakdown.total_time, b.breakdown.total_time) << what;
}

TEST(TraceSplit, EveryShippedTraceReadsAsAWholeReadInAnyNumberOfParts) {
  aorta::testing::TempDir dir;
  for (const auto& entry : std::filesystem::directory_iterator(kData)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".json.gz")) continue;
    auto plain = dir.write(name.substr(0, name.size() - 3), gunzip(entry.path()));
    const Read whole = read_split(plain, 1);
    EXPECT_EQ(whole.data.parts, 1u);
    for (unsigned parts : {2u, 3u, 7u, 16u}) {
      const Read split = read_split(plain, parts, 4096);
      // As many parts as asked, where the file holds that many 4 KiB shares.
      EXPECT_EQ(split.data.parts, std::min<uint64_t>(parts, std::filesystem::file_size(plain) / 4096)) << name;
      expect_same(whole, split, name + " in " + std::to_string(parts) + " parts");
    }
  }
  // The default smallest part (8 MiB): the 29 MB trace splits in two, a 1 MB one not.
  auto big = dir.path() / "h200-aorta-overlap_rank0.pt.trace.json";
  EXPECT_EQ(read_split(big, 2, TraceSplit{}.min_part_bytes).data.parts, 2u);
  EXPECT_EQ(read_split(dir.path() / "h200-torch2.11-kineto-nccl_rank0.json", 2, TraceSplit{}.min_part_bytes).data.parts,
            1u);
}

// A trace of `part1`'s events, a padding event, then `part2`'s, sized so that a split
// in two falls inside the padding: part 2 starts with part2's first event.
std::string two_part_trace(const std::vector<std::string>& part1, const std::vector<std::string>& part2) {
  auto pad = [](size_t n) {
    return R"({"ph":"X","cat":"user_annotation","name":")" + std::string(n, 'p') + R"(","pid":1,"tid":1,"ts":0,"dur":1})";
  };
  auto join = [](const std::vector<std::string>& events) {
    std::string out;
    for (const auto& e : events) out += (out.empty() ? "" : ",\n") + e;
    return out;
  };
  const std::string head = "{\"traceEvents\": [\n";
  const std::string tail = "\n]}\n";
  const std::string before = head + join(part1) + ",\n";  // up to the first padding event
  const std::string pad1 = pad(1100);
  // The second padding puts the split's target (half the file) inside the first
  // padding event.
  const std::string rest0 = ",\n" + join(part2) + ",\n" + pad(0) + tail;
  const size_t size = 2 * (before.size() + 1000);
  EXPECT_GT(size, before.size() + pad1.size() + rest0.size());
  const std::string text =
      before + pad1 + ",\n" + join(part2) + ",\n" + pad(size - before.size() - pad1.size() - rest0.size()) + tail;
  const size_t target = text.size() / 2;  // plan_parts: the size over the parts, times k
  EXPECT_GT(target, before.size() + 100);
  EXPECT_LT(target, before.size() + pad1.size() - 100);
  return text;
}

// The rules that span parts, with the split in the middle of a padding event so that
// part 2 starts at "other" (numbers worked by hand below).
TEST(TraceSplit, FileOrderRulesHoldAcrossTheSplit) {
  const std::vector<std::string> part1 = {
      // The file's first launch has no correlation: the file links by External id.
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":7,"ts":0,"dur":1,"args":{"External id":7}})",
      R"({"ph":"s","cat":"ac2g","id":7,"pid":1,"tid":7,"ts":0})",
      R"({"ph":"X","cat":"kernel","name":"k_first","pid":"gpu0","tid":7,"ts":10,"dur":10,"args":{"External id":7,"correlation":70}})",
      R"({"ph":"f","cat":"ac2g","id":7,"pid":"gpu0","tid":7,"ts":100,"bp":"e"})",
  };
  const std::vector<std::string> part2 = {
      // A string pid seen first here: "gpu0" is this part's second string, the file's first.
      R"({"ph":"X","cat":"cpu_op","name":"x","pid":"other","tid":7,"ts":0,"dur":1})",
      // This part's first launch has a correlation; it must not decide the key.
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":7,"ts":1,"dur":1,"args":{"correlation":90,"External id":9}})",
      // The same (pid, tid, External id) as k_first: the last in the file wins.
      R"({"ph":"X","cat":"kernel","name":"k_last","pid":"gpu0","tid":7,"ts":100,"dur":100,"args":{"External id":7,"correlation":71}})",
  };
  const std::string text = two_part_trace(part1, part2);
  aorta::testing::TempDir dir;
  auto file = dir.write("boundary.json", text);
  const Read whole = read_split(file, 1);
  const Read split = read_split(file, 2);
  ASSERT_EQ(split.data.parts, 2u);
  // By hand: link by External id (the first launch); the flow 7 ends on ("gpu0", 7),
  // whose last event with key 7 is k_last: one kernel, 100 us, from 100 to 200.
  for (const Read* r : {&whole, &split}) {
    EXPECT_EQ(r->data.link_by_correlation, std::optional<bool>(false));
    EXPECT_EQ(r->breakdown.selected_events, 1u);
    EXPECT_EQ(r->breakdown.computation_time, 100.0);
    EXPECT_EQ(r->breakdown.total_time, 100.0);
    EXPECT_EQ(r->selected, (std::vector<bool>{false, true}));
  }
  expect_same(whole, split, "boundary");
  // Every other split point too: 2 to 12 parts of a file of 13 events.
  for (unsigned parts = 3; parts <= 12; ++parts) {
    const Read r = read_split(file, parts);
    EXPECT_GT(r.data.parts, 1u) << parts;
    expect_same(whole, r, std::to_string(parts) + " parts");
  }
}

// A part without a launch keeps every keyed event's thread until the merge, also of
// events whose key the file's first launch rules out: a whole read never sees those
// threads. The records still come out the same, thread numbers included.
TEST(TraceSplit, ThreadsSeenOnlyBeforeAPartsDecisionDoNotReorderTheRecords) {
  const std::vector<std::string> part1 = {
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":7,"ts":0,"dur":1,"args":{"correlation":5}})",
  };
  const std::vector<std::string> part2 = {
      R"({"ph":"X","cat":"cpu_op","name":"e1","pid":3,"tid":3,"ts":1,"dur":1,"args":{"External id":4}})",
      R"({"ph":"X","cat":"cpu_op","name":"e2","pid":2,"tid":2,"ts":2,"dur":1,"args":{"correlation":10}})",
      R"({"ph":"X","cat":"cpu_op","name":"e3","pid":3,"tid":3,"ts":3,"dur":1,"args":{"correlation":11}})",
  };
  aorta::testing::TempDir dir;
  auto file = dir.write("threads.json", two_part_trace(part1, part2));
  const Read whole = read_split(file, 1);
  const Read split = read_split(file, 2);
  ASSERT_EQ(split.data.parts, 2u);
  // By hand: linked by correlation; keyed events 5 on (1,7), 10 on (2,2), 11 on (3,3);
  // e1 has no correlation and is no record.
  std::vector<int64_t> keys;
  for (const auto& k : whole.data.keyed_events) keys.push_back(k.key);
  EXPECT_EQ(keys, (std::vector<int64_t>{5, 10, 11}));
  expect_same(whole, split, "threads");
}

TEST(TraceSplit, SplitGuessedInsideAStringFallsBackToTheWholeRead) {
  // The middle of the file is inside a name that looks like an element boundary.
  const std::string fake = std::string(3000, 'a') + "},\\n{" + std::string(3000, 'b') + "}, {" + std::string(3000, 'c');
  const std::string text = R"({"traceEvents": [{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":1,"ts":0,"dur":5},
    {"ph":"X","cat":"user_annotation","name":")" + fake + R"(","pid":0,"tid":1,"ts":0,"dur":5}]})";
  aorta::testing::TempDir dir;
  auto file = dir.write("fake.json", text);
  const Read split = read_split(file, 2);
  EXPECT_EQ(split.data.parts, 1u);  // read whole after the guess failed
  EXPECT_EQ(split.data.events, 2u);
  EXPECT_EQ(split.data.gpu_events.size(), 1u);
}

// A part before another must end between two elements, after their ','; anywhere
// else (inside a string or an event, or past the array) the split guess was wrong.
TEST(TraceSplit, PartThatDoesNotEndBetweenElementsIsRefused) {
  const std::string a = R"({"ph":"X","cat":"kernel","name":"a}, {b","pid":0,"tid":1,"ts":0,"dur":5})";
  const std::string text = R"({"traceEvents": [)" + a + ",\n" + a + "], \"x\": 1}";
  aorta::testing::TempDir dir;
  auto file = dir.write("parts.json", text);
  ScanCallbacks none;
  none.on_events = [](const EventBatch&) { return ok_status(); };
  auto ends_at = [&](uint64_t end) { return scan_trace_part(file, none, {}, kDefaultMaxTokenBytes, ScanPart{0, end, false}); };
  const uint64_t second = text.find('{', 17 + a.size());
  auto good = ends_at(second);
  ASSERT_TRUE(good.ok()) << good.error().describe();
  EXPECT_EQ(good->events, 1u);
  const uint64_t in_string = text.find("{b");  // looks like an element: "}, {"
  for (uint64_t end : {in_string, second - 2 /* before the ',' */, uint64_t{20} /* inside the event */,
                       static_cast<uint64_t>(text.size() - 3) /* past the array */}) {
    auto bad = ends_at(end);
    ASSERT_FALSE(bad.ok()) << end;
    EXPECT_NE(bad.error().message.find("byte " + std::to_string(end) + " is not the start of a traceEvents element"),
              std::string::npos)
        << bad.error().message;
  }
  // The part after a good split point reads the rest, to the end of the file.
  auto rest = scan_trace_part(file, none, {}, kDefaultMaxTokenBytes, ScanPart{second, UINT64_MAX, false});
  ASSERT_TRUE(rest.ok()) << rest.error().describe();
  EXPECT_EQ(rest->events, 1u);
  EXPECT_EQ(rest->bytes, text.size() - second);
}

TEST(TraceSplit, DamagedSplitFileReportsWhatAWholeReadReports) {
  aorta::testing::TempDir dir;
  std::string text = gunzip(kData / "h200-aorta-overlap_rank0.pt.trace.json.gz");
  text[text.find("\"ph\"", text.size() * 3 / 4)] = '}';  // in the last part
  auto file = dir.write("damaged.json", text);
  auto whole = read_trace(file, BasicScanMode::kSkip);
  auto split = read_trace(file, BasicScanMode::kSkip, {}, TraceSplit{4, 4096});
  ASSERT_FALSE(whole.ok());
  ASSERT_FALSE(split.ok());
  EXPECT_EQ(split.error().message, whole.error().message);
  EXPECT_EQ(split.error().context, whole.error().context);
  auto truncated = dir.write("truncated.json", text.substr(0, text.size() / 2));
  auto cut_whole = read_trace(truncated, BasicScanMode::kSkip);
  auto cut_split = read_trace(truncated, BasicScanMode::kSkip, {}, TraceSplit{4, 4096});
  ASSERT_FALSE(cut_split.ok());
  EXPECT_EQ(cut_split.error().message, cut_whole.error().message);
}

}  // namespace
}  // namespace aorta::trace

// The original's peak_memory_gb: the largest args."Total Allocated" of Kineto's
// [memory] events (profile_memory=True), in a whole read and in one split in three.
namespace aorta::trace {
namespace {

TEST(PeakMemory, LargestTotalAllocatedInAWholeOrASplitRead) {
  aorta::testing::TempDir dir;
  std::string events;
  // 1 GiB, then 3 GiB in the middle, then 2 GiB; a string, a negative number and a
  // non-memory event's args count for nothing.
  for (double gib : {1.0, 3.0, 2.0}) {
    for (int i = 0; i < 40; ++i)
      events += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(i * 10) +
                R"(,"dur":5,"args":{"correlation":1}},)" "\n";
    events += R"({"ph":"i","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":5,"args":{"Total Allocated":)" +
              std::to_string(static_cast<int64_t>(gib * 1024 * 1024 * 1024)) + R"(,"Bytes":512}},)" "\n";
  }
  events += R"({"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":6,"args":{"Total Allocated":"9999999999999"}},)" "\n";
  events += R"({"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":7,"args":{"Total Allocated":-5}})";
  const auto file = dir.write("memory.json", "{\"traceEvents\": [\n" + events + "\n]}");
  for (unsigned parts : {1u, 3u}) {
    auto data = read_trace(file, BasicScanMode::kSkip, {}, TraceSplit{parts, 1});
    ASSERT_TRUE(data.ok()) << data.error().describe();
    EXPECT_EQ(data->parts, parts);
    ASSERT_TRUE(data->peak_allocated_bytes.has_value());
    EXPECT_EQ(*data->peak_allocated_bytes, 3.0 * 1024 * 1024 * 1024) << parts << " part(s)";
  }
  const auto none = dir.write("none.json", R"({"traceEvents": [{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":5}]})");
  auto data = read_trace(none);
  ASSERT_TRUE(data.ok());
  EXPECT_FALSE(data->peak_allocated_bytes.has_value());
}

}  // namespace
}  // namespace aorta::trace
