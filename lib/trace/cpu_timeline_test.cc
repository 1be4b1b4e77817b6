// The CPU timeline on a small trace whose numbers are worked out by hand below, in
// both formats (Kineto's cat, the legacy writer's none), and its edges: no steps,
// the training thread chosen by operator time, a GPU event ending it.
#include "trace/cpu_timeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <regex>
#include <string>

#include "tests/temp_dir.h"

namespace aorta::trace {
namespace {

// Training thread tid 10 (it holds the steps): steps [100,200) and [200,300), so the
// window is [100,300), total 200.
//   top-level operators: A linear [90,130) (straddles the window start; addmm [95,125)
//   nested), B forward [140,190) (relu nested), D optimizer step [210,260) (holds the
//   collective c10d::broadcast_ [220,230)), E add_ [280,310) (straddles the end);
//   c10d::allreduce_ [190,200) is a top-level collective.
// gloo threads: tid 20 gloo:all_reduce [120,170) (a copy_ nested, not compute: not the
// training thread), tid 21 gloo:broadcast [160,180), overlapping it.
// tid 30: aten::mm [0,80), top-level operator time 80 < the training thread's 170.
// By hand:
//   COMP = ([90,130) [140,190) [210,260) [280,310)) - ([190,200) [220,230)), clipped:
//          [100,130) 30 + [140,190) 50 + [210,220) 10 + [230,260) 30 + [280,300) 20 = 140
//   COMM = [120,180) 60 + [190,200) 10 + [220,230) 10 = 80
//   overlap = [120,130) 10 + [140,180) 40 = 50; exposed = 30; busy = 140 + 80 - 50 = 170;
//   idle = 30; events inside: A B D E + 4 collectives = 8.
const char* kTrace = R"J({"traceEvents": [
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":10,"ts":100,"dur":100},
  {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":10,"ts":90,"dur":40},
  {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":10,"ts":95,"dur":30},
  {"ph":"X","cat":"user_annotation","name":"DistributedDataParallel.forward","pid":1,"tid":10,"ts":140,"dur":50},
  {"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":10,"ts":150,"dur":10},
  {"ph":"X","cat":"cpu_op","name":"c10d::allreduce_","pid":1,"tid":10,"ts":190,"dur":10},
  {"ph":"X","cat":"user_annotation","name":"gloo:all_reduce","pid":1,"tid":20,"ts":120,"dur":50},
  {"ph":"X","cat":"cpu_op","name":"aten::copy_","pid":1,"tid":20,"ts":125,"dur":10},
  {"ph":"X","cat":"user_annotation","name":"gloo:broadcast","pid":1,"tid":21,"ts":160,"dur":20},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":10,"ts":200,"dur":100},
  {"ph":"X","cat":"user_annotation","name":"Optimizer.step#SGD.step","pid":1,"tid":10,"ts":210,"dur":50},
  {"ph":"X","cat":"cpu_op","name":"c10d::broadcast_","pid":1,"tid":10,"ts":220,"dur":10},
  {"ph":"X","cat":"cpu_op","name":"aten::add_","pid":1,"tid":10,"ts":280,"dur":30},
  {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":30,"ts":0,"dur":80},
  {"ph":"X","cat":"Trace","name":"PyTorch Profiler (0)","pid":"Spans","tid":"PyTorch Profiler","ts":0,"dur":1000}
]})J";

std::string without(const std::string& text, const std::string& pattern) {
  return std::regex_replace(text, std::regex(pattern), "");
}

std::optional<CpuTimeline> timeline_of(const std::string& text) {
  aorta::testing::TempDir dir;
  auto data = read_trace(dir.write("t.json", text), BasicScanMode::kInclude);
  EXPECT_TRUE(data.ok()) << data.error().describe();
  if (!data.ok()) return std::nullopt;
  return cpu_timeline(*data);
}

TEST(CpuTimeline, WorkedExampleByHandInBothFormats) {
  // The legacy writer: no cat, a bare array, pid "CPU functions".
  std::string legacy = without(kTrace, R"("cat":"[a-z_]+",)");
  legacy = std::regex_replace(legacy, std::regex(R"("pid":1,)"), R"("pid":"CPU functions",)");
  legacy = without(legacy, R"(,\n  \{"ph":"X","cat":"Trace"[^\n]*)");
  legacy = legacy.substr(legacy.find('['));
  legacy = legacy.substr(0, legacy.rfind(']') + 1);
  for (const std::string& text : {std::string(kTrace), legacy}) {
    SCOPED_TRACE(text.substr(0, 60));
    auto t = timeline_of(text);
    ASSERT_TRUE(t.has_value());
    const Breakdown& b = t->breakdown;
    EXPECT_TRUE(t->window_from_steps);
    EXPECT_DOUBLE_EQ(t->window_start, 100);
    EXPECT_DOUBLE_EQ(t->window_end, 300);
    EXPECT_DOUBLE_EQ(b.total_time, 200);
    EXPECT_DOUBLE_EQ(b.computation_time, 140);
    EXPECT_DOUBLE_EQ(b.total_comm_time, 80);
    EXPECT_DOUBLE_EQ(b.comp_comm_overlap_time, 50);
    EXPECT_DOUBLE_EQ(b.exposed_comm_time, 30);
    EXPECT_DOUBLE_EQ(b.busy_time, 170);
    EXPECT_DOUBLE_EQ(b.idle_time, 30);
    EXPECT_DOUBLE_EQ(b.total_memcpy_time, 0);
    EXPECT_EQ(b.selected_events, 8u);
    EXPECT_EQ(t->compute, (Intervals{{100, 130}, {140, 190}, {210, 220}, {230, 260}, {280, 300}}));
    EXPECT_EQ(t->comm, (Intervals{{120, 180}, {190, 200}, {220, 230}}));
  }
}

// Without steps the window is the span of what enters COMP or COMM, [90,310): total
// 220, COMP unclipped 40 + 50 + 10 + 30 + 30 = 160, the rest as above (all inside):
// COMM 80, overlap 50, exposed 30, busy 190, idle 30. tid 30's aten::mm is outside.
TEST(CpuTimeline, WithoutStepsTheWindowIsTheEventsSpan) {
  auto t = timeline_of(without(kTrace, R"(\n  \{[^\n]*ProfilerStep[^\n]*)"));
  ASSERT_TRUE(t.has_value());
  EXPECT_FALSE(t->window_from_steps);
  EXPECT_DOUBLE_EQ(t->window_start, 90);
  EXPECT_DOUBLE_EQ(t->window_end, 310);
  EXPECT_DOUBLE_EQ(t->breakdown.total_time, 220);
  EXPECT_DOUBLE_EQ(t->breakdown.computation_time, 160);
  EXPECT_DOUBLE_EQ(t->breakdown.total_comm_time, 80);
  EXPECT_DOUBLE_EQ(t->breakdown.comp_comm_overlap_time, 50);
  EXPECT_DOUBLE_EQ(t->breakdown.exposed_comm_time, 30);
  EXPECT_DOUBLE_EQ(t->breakdown.busy_time, 190);
  EXPECT_DOUBLE_EQ(t->breakdown.idle_time, 30);
}

// Without steps, the thread with the most top-level operator time trains: tid 30's
// aten::mm grown to [0,400) (400 > 170) makes it the training thread: COMP [0,400),
// window [0,400), every collective inside it: comm 80, all overlapped.
TEST(CpuTimeline, WithoutStepsTheBusiestThreadTrains) {
  std::string text = without(kTrace, R"(\n  \{[^\n]*ProfilerStep[^\n]*)");
  text = std::regex_replace(text, std::regex(R"("tid":30,"ts":0,"dur":80)"), R"("tid":30,"ts":0,"dur":400)");
  auto t = timeline_of(text);
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(t->breakdown.total_time, 400);
  EXPECT_DOUBLE_EQ(t->breakdown.computation_time, 400);
  EXPECT_DOUBLE_EQ(t->breakdown.total_comm_time, 80);
  EXPECT_DOUBLE_EQ(t->breakdown.comp_comm_overlap_time, 80);
  EXPECT_DOUBLE_EQ(t->breakdown.exposed_comm_time, 0);
}

TEST(CpuTimeline, AGpuEventMeansNoCpuTimeline) {
  std::string text = kTrace;
  text.insert(text.rfind('\n', text.find("ProfilerStep#2")), R"(
  {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":5,"dur":1},)");
  aorta::testing::TempDir dir;
  auto data = read_trace(dir.write("t.json", text), BasicScanMode::kInclude);
  ASSERT_TRUE(data.ok());
  EXPECT_TRUE(data->cpu_events.empty());  // dropped at the first GPU event
  EXPECT_FALSE(cpu_timeline(*data).has_value());
  // Read without the basic scan, no CPU events are kept at all.
  auto skip = read_trace(dir.write("cpu.json", kTrace), BasicScanMode::kSkip);
  ASSERT_TRUE(skip.ok());
  EXPECT_TRUE(skip->cpu_events.empty());
}

TEST(CpuTimeline, NothingButStepsIsNoTimeline) {
  EXPECT_FALSE(timeline_of(R"J({"traceEvents": [
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":10,"ts":100,"dur":100}]})J").has_value());
}

TEST(CpuTimeline, WhichEventsTakePart) {
  EXPECT_EQ(classify_cpu_event("cpu_op", "aten::mm"), CpuClass::kOperator);
  EXPECT_EQ(classify_cpu_event("", "aten::mm"), CpuClass::kOperator);  // legacy: no cat
  EXPECT_EQ(classify_cpu_event("user_annotation", "Optimizer.step#SGD.step"), CpuClass::kOperator);
  EXPECT_EQ(classify_cpu_event("user_annotation", "ProfilerStep#3"), CpuClass::kStep);
  for (const char* name : {"gloo:all_reduce", "c10d::allreduce_", "nccl:all_reduce", "record_param_comms",
                           "mpi:broadcast", "ucc:barrier"})
    EXPECT_EQ(classify_cpu_event("cpu_op", name), CpuClass::kCommunication) << name;
  EXPECT_EQ(classify_cpu_event("cpu_op", "aten::gloo_like"), CpuClass::kOperator);
  for (const char* cat : {"python_function", "gpu_user_annotation", "kernel", "cuda_runtime", "Trace"})
    EXPECT_EQ(classify_cpu_event(cat, "aten::mm"), CpuClass::kNone) << cat;
}

TEST(CpuTimeline, LengthWithin) {
  EXPECT_DOUBLE_EQ(length_within({{0, 10}, {20, 30}}, 5, 25), 10);
  EXPECT_DOUBLE_EQ(length_within({{0, 10}}, 10, 20), 0);
}

// The definition written out, independently of the code's search: every interval's
// clipped length, added in order.
double brute_length(const Intervals& intervals, double start, double end) {
  double sum = 0;
  for (const auto& [s, e] : intervals) {
    const double lo = std::max(s, start), hi = std::min(e, end);
    if (lo < hi) sum += hi - lo;
  }
  return sum;
}

// Merged intervals (sorted, disjoint, not touching): gaps in (0, 5), lengths in
// [0, 5), one in ten of no length; random doubles, so sums round.
Intervals random_merged(std::mt19937_64& rng, size_t n) {
  std::uniform_real_distribution<double> gap(0.001, 5), length(0, 5);
  Intervals out;
  double t = 0;
  for (size_t i = 0; i < n; ++i) {
    t += gap(rng);
    const double len = i % 10 == 3 ? 0 : length(rng);
    out.emplace_back(t, t + len);
    t += len;
  }
  return out;
}

TEST(CpuTimeline, LengthsWithinByHand) {
  const Intervals intervals = {{0, 10}, {20, 30}, {40, 40}, {50, 60}};
  struct Case {
    double start, end, expected;
  };
  const Case cases[] = {
      {5, 25, 10},    // 5 of [0,10) and 5 of [20,30)
      {10, 20, 0},    // between two intervals, touching both
      {-5, 100, 30},  // all of them; [40,40) has no length
      {25, 55, 10},   // 5 of [20,30) and 5 of [50,60)
      {40, 40, 0},    // an empty span on an empty interval
      {55, 52, 0},    // a span that ends before it starts
      {60, 70, 0},    // after the last
      {0, 10, 10},    // exactly one
      {-10, 0, 0},    // before the first
  };
  std::vector<Interval> spans;
  for (const Case& c : cases) spans.emplace_back(c.start, c.end);
  const std::vector<double> got = lengths_within(intervals, spans);
  ASSERT_EQ(got.size(), std::size(cases));
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i], cases[i].expected) << "[" << cases[i].start << ", " << cases[i].end << ")";
    EXPECT_EQ(length_within(intervals, cases[i].start, cases[i].end), cases[i].expected);
  }
  EXPECT_EQ(lengths_within({}, spans), std::vector<double>(spans.size(), 0.0));
  EXPECT_TRUE(lengths_within(intervals, {}).empty());
}

// Spans as a training loop's steps are: one after another, now and then overlapping
// the last one a little or leaving a gap. Every sum is the definition's, to the bit.
TEST(CpuTimeline, LengthsWithinEqualsTheDefinitionOnStepLikeSpans) {
  std::mt19937_64 rng(29);
  for (size_t n : {0u, 1u, 7u, 1000u, 5000u}) {
    const Intervals intervals = random_merged(rng, n);
    const double last = intervals.empty() ? 100 : intervals.back().second;
    std::uniform_real_distribution<double> length(0, last / 50 + 1), shift(-1, 2);
    std::vector<Interval> spans;
    for (double t = -3; t < last + 3;) {
      const double len = length(rng);
      spans.emplace_back(t, t + len);
      t += len + shift(rng);
    }
    const std::vector<double> got = lengths_within(intervals, spans);
    ASSERT_EQ(got.size(), spans.size());
    for (size_t i = 0; i < spans.size(); ++i)
      ASSERT_EQ(got[i], brute_length(intervals, spans[i].first, spans[i].second))
          << n << " intervals, span " << i << " [" << spans[i].first << ", " << spans[i].second << ")";
  }
}

// Spans anywhere: nested, repeated, each over much of the trace. The sums equal the
// definition up to rounding (relative 1e-12 of the spans' length).
TEST(CpuTimeline, LengthsWithinEqualsTheDefinitionOnAnySpans) {
  std::mt19937_64 rng(30);
  const Intervals intervals = random_merged(rng, 3000);
  const double last = intervals.back().second;
  std::uniform_real_distribution<double> at(-10, last + 10);
  std::vector<Interval> spans;
  for (int i = 0; i < 2000; ++i) {
    const double a = at(rng), b = at(rng);
    spans.emplace_back(std::min(a, b), std::max(a, b));
  }
  spans.push_back(spans.front());  // an exact repeat
  const std::vector<double> got = lengths_within(intervals, spans);
  ASSERT_EQ(got.size(), spans.size());
  for (size_t i = 0; i < spans.size(); ++i)
    ASSERT_NEAR(got[i], brute_length(intervals, spans[i].first, spans[i].second), 1e-12 * last) << "span " << i;
}

// The issue 29 shape: many steps over many intervals, some flooding the whole trace.
// Summing each span over its intervals one by one took minutes here (100,000 steps of
// a 48 MB CPU trace: 209 s); a search and prefix sums take milliseconds.
TEST(CpuTimeline, LengthsWithinStaysFastOnManySpans) {
  std::mt19937_64 rng(31);
  const Intervals intervals = random_merged(rng, 400000);
  const double last = intervals.back().second;
  std::vector<Interval> spans;
  for (int i = 0; i < 100000; ++i) spans.emplace_back(last * i / 100000, last * (i + 1) / 100000);
  for (int i = 0; i < 50000; ++i) spans.emplace_back(i * 1e-3, last - i * 1e-3);  // nested, each nearly everything
  const auto begin = std::chrono::steady_clock::now();
  const std::vector<double> got = lengths_within(intervals, spans);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  ASSERT_EQ(got.size(), spans.size());
  EXPECT_LT(seconds, 1.0);
  // Spot checks against the definition: a step, and the widest nested span.
  EXPECT_EQ(got[123], brute_length(intervals, spans[123].first, spans[123].second));
  EXPECT_NEAR(got[100000], brute_length(intervals, spans[100000].first, spans[100000].second), 1e-12 * last);
}

}  // namespace
}  // namespace aorta::trace
