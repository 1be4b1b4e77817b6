// The streaming reader on the real traces in tests/data: counts, ranks, steps and
// the legacy bare array (trace_reader_errors_test.cc has damaged input,
// trace_split_test.cc the read split across threads).
#include "trace/trace_reader.h"

#include <map>

#include <gtest/gtest.h>

#include "tests/gunzip.h"
#include "tests/temp_dir.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

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

// Counts by Python's json.load: the kernels whose args hold "Collective name", by
// (name, dtype, In msg nelems, Out msg nelems, Group size).
TEST(TraceReader, CollectiveKernelsKeepTheirMetadata) {
  auto data = read_trace(kData / "h200-aorta-overlap_rank0.pt.trace.json.gz", BasicScanMode::kSkip);
  ASSERT_TRUE(data.ok()) << data.error().describe();
  std::map<std::string, int> count;
  int gemm = 0;
  for (const GpuEvent& e : data->gpu_events) {
    gemm += e.kind == KernelKind::kGemm;
    if (e.collective == kNoCollective) continue;
    const CollectiveKey& k = data->collectives.at(e.collective);
    ++count[k.name + " " + k.dtype + " " + std::to_string(k.in_nelems) + " " + std::to_string(k.out_nelems) + " " +
            std::to_string(k.group_size)];
  }
  const std::map<std::string, int> expected{{"_allgather_base Float 6298112 12596224 2", 96},
                                            {"_allgather_base Float 30980097 61960194 2", 4},
                                            {"_reduce_scatter_base Float 12596224 6298112 2", 48},
                                            {"_reduce_scatter_base Float 61960194 30980097 2", 4},
                                            {"allreduce Float 1048576 1048576 2", 36},
                                            {"allreduce Float 1 1 2", 4}};
  EXPECT_EQ(count, expected);
  EXPECT_EQ(data->collectives.size(), 6u);
  EXPECT_EQ(gemm, 628);  // 616 nvjet_ (cuBLAS, sm90), 8 cublasLt splitKreduce, 4 cutlass gemm
}

TEST(TraceReader, CollectiveFieldsAKernelLacksStayUnknown) {
  aorta::testing::TempDir dir;
  auto file = dir.write("t.json", R"({"traceEvents": [
{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce","pid":0,"tid":7,"ts":10,"dur":5,
 "args":{"Collective name":"allreduce","In msg nelems":"many","Group size":4}},
{"ph":"X","cat":"kernel","name":"ncclDevKernel_AllReduce","pid":0,"tid":7,"ts":20,"dur":5,"args":{}}]})");
  auto data = read_trace(file, BasicScanMode::kSkip);
  ASSERT_TRUE(data.ok()) << data.error().describe();
  ASSERT_EQ(data->gpu_events.size(), 2u);
  EXPECT_EQ(data->gpu_events[0].collective, 0u);
  EXPECT_EQ(data->gpu_events[1].collective, kNoCollective);
  ASSERT_EQ(data->collectives.size(), 1u);
  EXPECT_EQ(data->collectives[0], (CollectiveKey{"allreduce", "", -1, -1, 4}));
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

}  // namespace
}  // namespace aorta::trace
