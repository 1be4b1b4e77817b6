// Per-step figures on a hand-made trace, and the run's step summary on hand-made
// ranks; every expected number is worked out by hand in the comments.
#include "metrics/step_metrics.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <tuple>

#include "metrics/run_metrics.h"
#include "tests/temp_dir.h"
#include "trace/cpu_timeline.h"
#include "trace/timeline.h"

namespace aorta::metrics {
namespace {

// Two steps: #1 [0, 100) and #2 [100, 150) (us; written in reverse order). Launches
// on the CPU thread (pid 100), each with its flow to the kernel of the same
// correlation:
//   corr 1 at ts 10  -> compute Cijk   [20, 60)
//   corr 2 at ts 20  -> nccl           [40, 90)
//   corr 3 at ts 99  -> compute Cijk   [120, 130)  launched in #1, runs in #2's time
//   corr 4 at ts 110 -> nccl           [125, 160)
//   corr 5 at ts 150 -> compute        [200, 210)  at #2's end: in no step
//   corr 6 at ts 30  -> compute        [60, 70)    no "s" flow: unlinked, not on the timeline
// Step #1: compute [20,60)+[120,130) = 50; comm [40,90) = 50; overlap [40,60) = 20;
//          exposed comm [60,90) = 30; overlap ratio 20/50 = 0.4; 3 events; 100 us.
// Step #2: compute 0; comm [125,160) = 35; overlap 0; exposed 35; ratio 0; 1 event; 50 us.
const char* kTwoSteps = R"J({"traceEvents": [
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":100,"tid":100,"ts":100,"dur":50},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":100,"tid":100,"ts":0,"dur":100},
  {"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#1","pid":0,"tid":7,"ts":0,"dur":300},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":10,"dur":1,"args":{"correlation":1}},
  {"ph":"s","cat":"ac2g","name":"ac2g","id":1,"pid":100,"tid":100,"ts":10},
  {"ph":"f","cat":"ac2g","name":"ac2g","id":1,"pid":0,"tid":7,"ts":20,"bp":"e"},
  {"ph":"X","cat":"kernel","name":"Cijk_Alik_Bljk","pid":0,"tid":7,"ts":20,"dur":40,"args":{"correlation":1}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":20,"dur":1,"args":{"correlation":2}},
  {"ph":"s","cat":"ac2g","name":"ac2g","id":2,"pid":100,"tid":100,"ts":20},
  {"ph":"f","cat":"ac2g","name":"ac2g","id":2,"pid":0,"tid":20,"ts":40,"bp":"e"},
  {"ph":"X","cat":"kernel","name":"ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)","pid":0,"tid":20,"ts":40,"dur":50,"args":{"correlation":2}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":99,"dur":1,"args":{"correlation":3}},
  {"ph":"s","cat":"ac2g","name":"ac2g","id":3,"pid":100,"tid":100,"ts":99},
  {"ph":"f","cat":"ac2g","name":"ac2g","id":3,"pid":0,"tid":7,"ts":120,"bp":"e"},
  {"ph":"X","cat":"kernel","name":"Cijk_Alik_Bljk","pid":0,"tid":7,"ts":120,"dur":10,"args":{"correlation":3}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":110,"dur":1,"args":{"correlation":4}},
  {"ph":"s","cat":"ac2g","name":"ac2g","id":4,"pid":100,"tid":100,"ts":110},
  {"ph":"f","cat":"ac2g","name":"ac2g","id":4,"pid":0,"tid":20,"ts":125,"bp":"e"},
  {"ph":"X","cat":"kernel","name":"ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)","pid":0,"tid":20,"ts":125,"dur":35,"args":{"correlation":4}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":150,"dur":1,"args":{"correlation":5}},
  {"ph":"s","cat":"ac2g","name":"ac2g","id":5,"pid":100,"tid":100,"ts":150},
  {"ph":"f","cat":"ac2g","name":"ac2g","id":5,"pid":0,"tid":7,"ts":200,"bp":"e"},
  {"ph":"X","cat":"kernel","name":"Cijk_Alik_Bljk","pid":0,"tid":7,"ts":200,"dur":10,"args":{"correlation":5}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":30,"dur":1,"args":{"correlation":6}},
  {"ph":"f","cat":"ac2g","name":"ac2g","id":6,"pid":0,"tid":8,"ts":60,"bp":"e"},
  {"ph":"X","cat":"kernel","name":"elementwise_kernel","pid":0,"tid":8,"ts":60,"dur":10,"args":{"correlation":6}}
]})J";

TEST(StepMetrics, TwoStepsByHand) {
  aorta::testing::TempDir dir;
  for (auto mode : {trace::BasicScanMode::kSkip, trace::BasicScanMode::kInclude}) {
    auto data = trace::read_trace(dir.write("t.json", kTwoSteps), mode);
    ASSERT_TRUE(data.ok()) << data.error().describe();
    const auto selected = trace::select_gpu_events(*data, trace::KernelSelection::kLinkedOnly);
    const std::vector<StepMetrics> steps = step_metrics(*data, selected);
    ASSERT_EQ(steps.size(), 2u);
    EXPECT_EQ(steps[0].step, 1);
    EXPECT_EQ(steps[0].start_us, 0);
    EXPECT_DOUBLE_EQ(steps[0].time_ms, 0.1);
    EXPECT_EQ(steps[0].gpu_events, 3u);
    EXPECT_DOUBLE_EQ(*steps[0].compute_ms, 0.05);
    EXPECT_DOUBLE_EQ(*steps[0].comm_ms, 0.05);
    EXPECT_DOUBLE_EQ(*steps[0].exposed_comm_ms, 0.03);
    EXPECT_DOUBLE_EQ(*steps[0].overlap_ms, 0.02);
    EXPECT_DOUBLE_EQ(*steps[0].overlap_ratio, 0.4);
    EXPECT_EQ(steps[1].step, 2);
    EXPECT_DOUBLE_EQ(steps[1].time_ms, 0.05);
    EXPECT_EQ(steps[1].gpu_events, 1u);
    EXPECT_DOUBLE_EQ(*steps[1].compute_ms, 0);
    EXPECT_DOUBLE_EQ(*steps[1].comm_ms, 0.035);
    EXPECT_DOUBLE_EQ(*steps[1].exposed_comm_ms, 0.035);
    EXPECT_DOUBLE_EQ(*steps[1].overlap_ms, 0);
    EXPECT_DOUBLE_EQ(*steps[1].overlap_ratio, 0);
    // No GPU timeline: step times only.
    const std::vector<StepMetrics> cpu_only = step_metrics(*data, {});
    ASSERT_EQ(cpu_only.size(), 2u);
    EXPECT_DOUBLE_EQ(cpu_only[0].time_ms, 0.1);
    EXPECT_FALSE(cpu_only[0].compute_ms.has_value());
    EXPECT_FALSE(cpu_only[0].overlap_ratio.has_value());
  }
}

// Issue 29: a ProfilerStep inside another one's span (#7 [30, 40) inside #1 [0, 100))
// took the launches of #1 after it (corr 3 at ts 99: the last step started before it
// was #7, which had ended, so the kernel was in no step) and was a step of its own.
// Now #7 is named in a warning and #1 is TwoStepsByHand's; a duplicate of #2 is one step.
TEST(StepMetrics, NestedAnnotationDoesNotEmptyItsStep) {
  std::string text = kTwoSteps;
  text.insert(text.find('[') + 1,
              R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#7","pid":100,"tid":100,"ts":30,"dur":10},)"
              R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":100,"tid":100,"ts":100,"dur":50},)");
  aorta::testing::TempDir dir;
  for (auto mode : {trace::BasicScanMode::kSkip, trace::BasicScanMode::kInclude}) {
    auto data = trace::read_trace(dir.write("t.json", text), mode);
    ASSERT_TRUE(data.ok()) << data.error().describe();
    const auto selected = trace::select_gpu_events(*data, trace::KernelSelection::kLinkedOnly);
    const std::vector<StepMetrics> steps = step_metrics(*data, selected);
    ASSERT_EQ(steps.size(), 2u);
    EXPECT_EQ(steps[0].step, 1);
    EXPECT_EQ(steps[0].gpu_events, 3u);
    EXPECT_DOUBLE_EQ(*steps[0].compute_ms, 0.05);
    EXPECT_DOUBLE_EQ(*steps[0].comm_ms, 0.05);
    EXPECT_EQ(steps[1].step, 2);
    EXPECT_EQ(steps[1].gpu_events, 1u);
    EXPECT_EQ(dropped_step_warnings(*data),
              (std::vector<std::string>{
                  "exact duplicate ProfilerStep annotations, counted once: 1; the first: ProfilerStep#2 at ts 100 us, "
                  "dur 50 us",
                  "ProfilerStep annotations inside another step's span, not counted as steps (their time and events "
                  "count in the step around them): 1; the first: ProfilerStep#7 at ts 30 us, dur 10 us, inside "
                  "ProfilerStep#1 at ts 0 us, dur 100 us"}));
  }
  auto plain = trace::read_trace(dir.write("plain.json", kTwoSteps));
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(dropped_step_warnings(*plain).empty());
}

// The per-step CPU figures by their definition, written out: each step's share of
// COMP, COMM, COMM - COMP and COMP ∩ COMM, every interval's clipped length added in
// order, over all the intervals.
struct BruteStep {
  double compute = 0, comm = 0, exposed = 0, overlap = 0;
};

double brute_within(const trace::Intervals& intervals, double start, double end) {
  double sum = 0;
  for (const auto& [s, e] : intervals) {
    const double lo = std::max(s, start), hi = std::min(e, end);
    if (lo < hi) sum += hi - lo;
  }
  return sum;
}

// Merged intervals: gaps in (0, 3), lengths in [0, 4), random doubles.
trace::Intervals random_merged(std::mt19937_64& rng, size_t n) {
  std::uniform_real_distribution<double> gap(0.001, 3), length(0, 4);
  trace::Intervals out;
  double t = 0;
  for (size_t i = 0; i < n; ++i) {
    t += gap(rng);
    const double len = length(rng);
    out.emplace_back(t, t + len);
    t += len;
  }
  return out;
}

// A CPU timeline of random compute and communication, and steps one after another
// (a gap or a small overlap now and then) written to the trace in shuffled order.
struct RandomCpuRank {
  trace::TraceData data;
  trace::CpuTimeline timeline;
};

RandomCpuRank random_cpu_rank(uint64_t seed, size_t intervals, size_t steps) {
  std::mt19937_64 rng(seed);
  RandomCpuRank r;
  r.timeline.compute = random_merged(rng, intervals);
  r.timeline.comm = random_merged(rng, intervals);
  const double last = std::max(r.timeline.compute.back().second, r.timeline.comm.back().second);
  std::uniform_real_distribution<double> shift(-0.5, 1);
  double t = 0;
  for (size_t k = 0; k < steps; ++k) {
    const double dur = last / static_cast<double>(steps);
    r.data.steps.push_back({static_cast<int64_t>(k), t, dur});
    t += dur + shift(rng);
  }
  std::shuffle(r.data.steps.begin(), r.data.steps.end(), rng);
  return r;
}

TEST(StepMetrics, CpuStepsEqualTheDefinitionOnRandomTimelines) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    const RandomCpuRank r = random_cpu_rank(seed, 4000, 300);
    const trace::Intervals exposed = trace::subtract_intervals(r.timeline.comm, r.timeline.compute);
    const trace::Intervals overlap = trace::intersect_intervals(r.timeline.compute, r.timeline.comm);
    const std::vector<StepMetrics> got = cpu_step_metrics(r.data, r.timeline);
    ASSERT_EQ(got.size(), 300u);
    for (size_t k = 0; k < got.size(); ++k) {
      // By start: the steps were numbered in time order.
      ASSERT_EQ(got[k].step, static_cast<int64_t>(k));
      const double start = got[k].start_us;
      const auto& annotation = *std::find_if(r.data.steps.begin(), r.data.steps.end(),
                                             [&](const trace::StepAnnotation& a) { return a.number == got[k].step; });
      const double exact_end = annotation.ts + annotation.dur;
      const double compute = brute_within(r.timeline.compute, start, exact_end);
      const double comm = brute_within(r.timeline.comm, start, exact_end);
      const double both = brute_within(overlap, start, exact_end);
      EXPECT_EQ(*got[k].compute_ms, compute / 1000.0) << "seed " << seed << " step " << k;
      EXPECT_EQ(*got[k].comm_ms, comm / 1000.0) << "seed " << seed << " step " << k;
      EXPECT_EQ(*got[k].exposed_comm_ms, brute_within(exposed, start, exact_end) / 1000.0) << "step " << k;
      EXPECT_EQ(*got[k].overlap_ms, both / 1000.0) << "step " << k;
      if (comm > 0) {
        ASSERT_TRUE(got[k].overlap_ratio.has_value());
        EXPECT_EQ(*got[k].overlap_ratio, both / comm);
      } else {
        EXPECT_FALSE(got[k].overlap_ratio.has_value());
      }
    }
  }
}

// Issue 29: each step summed over whole interval lists, so many steps over many
// intervals were quadratic (100,000 steps of a 48 MB CPU trace: 209 s). 100,000
// steps over 2 x 300,000 intervals would take minutes that way.
TEST(StepMetrics, CpuStepsStayFastOnManyStepsAndIntervals) {
  const RandomCpuRank r = random_cpu_rank(4, 300000, 100000);
  const auto begin = std::chrono::steady_clock::now();
  const std::vector<StepMetrics> got = cpu_step_metrics(r.data, r.timeline);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  ASSERT_EQ(got.size(), 100000u);
  EXPECT_LT(seconds, 1.5);
  const auto& a = *std::find_if(r.data.steps.begin(), r.data.steps.end(),
                                [](const trace::StepAnnotation& s) { return s.number == 777; });
  EXPECT_EQ(*got[777].compute_ms, brute_within(r.timeline.compute, a.ts, a.ts + a.dur) / 1000.0);
}

RankMetrics rank_with_steps(int rank, std::vector<double> times_ms) {
  RankMetrics r;
  r.rank = rank;
  r.total_time_us = 1000;
  for (size_t i = 0; i < times_ms.size(); ++i) {
    StepMetrics s;
    s.step = static_cast<int64_t>(i) + 1;
    s.time_ms = times_ms[i];
    r.steps.push_back(s);
  }
  return r;
}

// Rank 0: steps 1-3 take 100, 110, 130 ms; rank 1: 104, 110, 150 ms.
// Pooled (6 times): mean 704 / 6 = 117.3333; sorted 100 104 110 110 130 150, so the
// median is 110 and p95 (position 5 x 0.95 = 4.75) 130 + 0.75 x 20 = 145; max 150.
// Population variance: (17.333² + 13.333² + 7.333² + 7.333² + 12.667² + 32.667²) / 6
// = 1813.333 / 6 = 302.222, stddev 17.38454, cv 17.38454 / 117.3333 = 0.1481637.
// Stragglers: step 1 rank 1 by 4 ms; step 2 a tie, rank 0 by 0; step 3 rank 1 by 20
// (the worst).
// Issue 28: one rank has no peer, so no straggler (it used to be "+0.000 ms over
// the fastest", itself); the pooled figures are still there.
TEST(StepSummary, OneRankHasNoStraggler) {
  auto run = aggregate({rank_with_steps(0, {100, 110, 130})});
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_TRUE(run->steps.has_value());
  EXPECT_EQ(run->steps->step_count, 3u);
  EXPECT_TRUE(run->steps->stragglers.empty());
  EXPECT_FALSE(run->steps->worst.has_value());
  // A second rank without steps is no peer either.
  auto with_empty = aggregate({rank_with_steps(0, {100, 110, 130}), rank_with_steps(1, {})});
  ASSERT_TRUE(with_empty.ok());
  EXPECT_FALSE(with_empty->steps->worst.has_value());
}

TEST(StepSummary, PooledFiguresAndStragglersByHand) {
  // Given in reverse rank order: aggregate sorts by rank first.
  auto run = aggregate({rank_with_steps(1, {104, 110, 150}), rank_with_steps(0, {100, 110, 130})});
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_TRUE(run->steps.has_value());
  const StepSummary& s = *run->steps;
  EXPECT_EQ(s.step_count, 3u);
  EXPECT_EQ(s.samples, 6u);
  EXPECT_NEAR(s.mean_ms, 117.333333333, 1e-6);
  EXPECT_DOUBLE_EQ(s.median_ms, 110);
  EXPECT_DOUBLE_EQ(s.p95_ms, 145);
  EXPECT_DOUBLE_EQ(s.max_ms, 150);
  EXPECT_NEAR(s.cv, 0.1481637, 1e-6);
  ASSERT_EQ(s.stragglers.size(), 3u);
  EXPECT_EQ(s.stragglers[0].step, 1);
  EXPECT_EQ(s.stragglers[0].slowest_rank, 1);
  EXPECT_DOUBLE_EQ(s.stragglers[0].excess_ms, 4);
  EXPECT_EQ(s.stragglers[1].slowest_rank, 0);
  EXPECT_DOUBLE_EQ(s.stragglers[1].excess_ms, 0);
  EXPECT_EQ(s.stragglers[2].slowest_rank, 1);
  EXPECT_DOUBLE_EQ(s.stragglers[2].excess_ms, 20);
  ASSERT_TRUE(s.worst.has_value());
  EXPECT_EQ(s.worst->step, 3);
  EXPECT_EQ(s.worst->slowest_rank, 1);
  EXPECT_DOUBLE_EQ(s.worst->excess_ms, 20);

  // The gates: 117.33 ms > 117 fails; cv 0.148 <= 0.15 passes.
  auto checks = check_thresholds(*run, {{"max_avg_step_time_ms", 117.0}, {"max_step_time_cv", 0.15}});
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_FALSE(checks[0].passed);
  EXPECT_EQ(checks[0].message, "Average step time 117.33ms exceeds threshold 117ms");
  EXPECT_EQ(checks[0].unit, MetricUnit::kMs);
  EXPECT_TRUE(checks[1].passed);
  EXPECT_NEAR(*checks[1].actual, 0.1481637, 1e-6);
}

// What made each straggler late. Step 1: rank 0 100 ms (compute 60, exposed comm 20,
// rest 20), rank 1 112 ms (62, 21, rest 29): idle +9 beats compute +2 and comm +1.
// Step 2: rank 1 130 ms (90, 20, 20) against 100 (60, 20, 20): compute +30. Step 3: no
// timeline figures, no cause. Step 4: rank 0 145 ms (60, 55, rest 30) against 110 (60, 25,
// 25): communication +30 beats idle +5; the worst (35 ms). Step 5: both 100 ms, no
// straggler, so no cause.
TEST(StepSummary, StragglerCauseIsThePartThatGrewMost) {
  RankMetrics r0 = rank_with_steps(0, {100, 100, 100, 145, 100});
  RankMetrics r1 = rank_with_steps(1, {112, 130, 120, 110, 100});
  const std::vector<std::pair<double, double>> figures0{{60, 20}, {60, 20}, {}, {60, 55}, {60, 20}},
      figures1{{62, 21}, {90, 20}, {}, {60, 25}, {70, 10}};
  for (size_t i : {0, 1, 3, 4}) {
    std::tie(r0.steps[i].compute_ms, r0.steps[i].exposed_comm_ms) = figures0[i];
    std::tie(r1.steps[i].compute_ms, r1.steps[i].exposed_comm_ms) = figures1[i];
  }
  auto run = aggregate({r0, r1});
  ASSERT_TRUE(run.ok());
  const auto& st = run->steps->stragglers;
  ASSERT_EQ(st.size(), 5u);
  EXPECT_EQ(st[0].cause, "idle");
  EXPECT_DOUBLE_EQ(st[0].compute_excess_ms, 2);
  EXPECT_DOUBLE_EQ(st[0].comm_excess_ms, 1);
  EXPECT_DOUBLE_EQ(st[0].idle_excess_ms, 9);
  EXPECT_EQ(st[1].cause, "compute");
  EXPECT_DOUBLE_EQ(st[1].compute_excess_ms, 30);
  EXPECT_DOUBLE_EQ(st[1].idle_excess_ms, 0);
  EXPECT_EQ(st[2].cause, "");
  EXPECT_EQ(st[3].slowest_rank, 0);
  EXPECT_EQ(st[3].cause, "communication");
  EXPECT_DOUBLE_EQ(st[3].comm_excess_ms, 30);
  EXPECT_DOUBLE_EQ(st[3].idle_excess_ms, 5);
  EXPECT_DOUBLE_EQ(st[4].excess_ms, 0);
  EXPECT_EQ(st[4].cause, "");
  EXPECT_EQ(run->steps->worst->step, 4);
}

TEST(StepSummary, NoAnnotationsGiveNoFiguresAndAConfiguredStepGateFails) {
  auto run = aggregate({rank_with_steps(0, {}), rank_with_steps(1, {})});
  ASSERT_TRUE(run.ok());
  EXPECT_FALSE(run->steps.has_value());
  auto checks = check_thresholds(*run, {{"max_avg_step_time_ms", 500.0}, {"max_step_time_cv", std::nullopt},
                                        {"max_step_time_cv", 0.1}, {"max_avg_iteration_ms", 5000.0}});
  ASSERT_EQ(checks.size(), 3u);  // a null threshold is not checked
  EXPECT_FALSE(checks[0].passed);
  EXPECT_FALSE(checks[0].actual.has_value());
  EXPECT_EQ(checks[0].message, "Average step time not available: the traces have no ProfilerStep annotations");
  EXPECT_FALSE(checks[1].passed);
  EXPECT_EQ(checks[1].message,
            "Step time coefficient of variation not available: the traces have no ProfilerStep annotations");
  EXPECT_TRUE(checks[2].passed);  // the window's gate is unaffected
}

}  // namespace
}  // namespace aorta::metrics
