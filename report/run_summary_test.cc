#include "report/run_summary.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "report/summary_table.h"

namespace aorta::report {
namespace {

// Two ranks whose figures are written out by hand below.
metrics::RunMetrics two_ranks() {
  metrics::RankMetrics r0;
  r0.rank = 0;
  r0.parser = metrics::ParserPath::kGpuTimeline;
  r0.total_time_us = 835600;  // 835.600 ms
  r0.compute_ratio = 0.11494;
  r0.comm_ratio = 0.61142;
  r0.exposed_comm_ratio = 0.61142;
  r0.overlap_ratio = 0.11171;
  metrics::RankMetrics r1 = r0;
  r1.rank = std::nullopt;  // unknown stays unknown
  r1.parser = metrics::ParserPath::kBasicScan;
  r1.total_time_us = 834100;
  r1.exposed_comm_ratio = std::nullopt;
  metrics::RunMetrics m;
  m.per_rank = {r0, r1};
  m.avg_iteration_time_ms = 834.85;  // (835.6 + 834.1) / 2
  m.min_iteration_time_us = 834100;
  m.max_iteration_time_us = 835600;
  m.time_variance_ratio = 0.00127;
  m.avg_compute_ratio = 0.11494;
  m.avg_comm_ratio = 0.61142;
  m.avg_overlap_ratio = 0.11171;
  return m;
}

RunRecord failed_run() {
  RunRecord run;
  run.suite = "aorta_distributed";
  run.run_id = "r1";
  run.seconds = 42.04;
  StageResult stage;
  stage.name = stage.stage = "test_validate_thresholds";
  stage.outcome = job::Outcome::kFailed;
  stage.failures = {"Average iteration time 834.85ms exceeds threshold 800ms", "second"};
  job::SubTest t;
  t.key = "metric";
  t.value = "max_avg_iteration_ms";
  t.outcome = job::Outcome::kFailed;
  t.actual = 834.85;
  t.limit = 800;
  t.unit = metrics::MetricUnit::kMs;
  t.message = "Average iteration time 834.85ms exceeds threshold 800ms";
  stage.subtests = {t};
  StageResult sub = stage;
  sub.name = "test_validate_thresholds/max_avg_iteration_ms";
  sub.subtest = t;
  stage.tests = {sub};
  StageResult teardown;
  teardown.name = teardown.stage = "test_teardown";
  run.stages = {stage, teardown};
  return run;
}

TEST(RunSummary, VerdictRankTableRunLineSubTestsAndFailures) {
  auto m = two_ranks();
  EXPECT_EQ(run_summary(failed_run(), &m),
            "== aorta_distributed FAILED: 1 passed, 2 failed, 0 skipped of 3 tests; run r1, 42.0 s\n"
            "rank   parser                 iteration time ms  compute comm (CVS)  exposed comm  overlap\n"
            "0      tracelens_gpu_timeline           835.600   11.49%     61.14%        61.14%   11.17%\n"
            "?      basic_scan                       834.100   11.49%     61.14%             -   11.17%\n"
            "run: avg iteration time (the whole profiled window) 834.850 ms (min 834.100, max 835.600), time variance "
            "ratio 0.13%; avg compute 11.49%, comm (CVS) 61.14%, exposed comm -, overlap 11.17%\n"
            "steps: none (no ProfilerStep annotations in the traces)\n"
            "Diagnosis\n"
            "  no outlier test: 2 rank(s), at least 3 needed for a median and MAD\n"
            "SUBFAIL [threshold] (metric=max_avg_iteration_ms): failed (actual 834.85 ms, max 800 ms) - Average "
            "iteration time 834.85ms exceeds threshold 800ms\n"
            "FAILED test_validate_thresholds: Average iteration time 834.85ms exceeds threshold 800ms\n");
}

// The steps line with one rank: no straggler, and why (issue 28); with two, the worst.
TEST(RunSummary, StepsLineNamesTheStragglerOrWhyThereIsNone) {
  auto m = two_ranks();
  metrics::StepSummary steps;
  steps.step_count = 4;
  steps.samples = 4;
  steps.mean_ms = 209.25625;
  steps.median_ms = 208.9155;
  steps.p95_ms = 232.0;
  steps.max_ms = 235.77;
  steps.cv = 0.0891;
  m.steps = steps;
  EXPECT_EQ(steps_line(m), "steps: 4 (4 rank-steps), per-step time mean 209.256 ms, median 208.916, p95 232.000, max 235.770, "
                           "cv 0.0891; one rank: no peer to compare with, so no straggler\n");
  m.steps->worst = metrics::StepStraggler{3, 1, 24.5};
  EXPECT_EQ(steps_line(m), "steps: 4 (4 rank-steps), per-step time mean 209.256 ms, median 208.916, p95 232.000, max 235.770, "
                           "cv 0.0891; worst straggler step 3 on rank 1, +24.500 ms over the fastest\n");
  // Steps that tie name no rank: rank 0 "+0.000 ms" would blame the lowest number.
  m.steps->worst = metrics::StepStraggler{1, 0, 0.0002};
  EXPECT_EQ(steps_line(m), "steps: 4 (4 rank-steps), per-step time mean 209.256 ms, median 208.916, p95 232.000, max 235.770, "
                           "cv 0.0891; every step took the same time on every rank (within 0.001 ms), so no straggler\n");
}

// At most five diagnosis lines, worst first, each naming the rank, its value and the median;
// the last says how many were left out.
TEST(RunSummary, DiagnosisLinesWorstFirstAtMostFive) {
  auto m = two_ranks();
  m.per_rank.push_back(m.per_rank[0]);
  for (int r = 0; r < 7; ++r)
    m.outliers.push_back({.rank = r, .source = "x", .measure = "gemm mean kernel time", .unit = "us", .value = 115.0 - r,
                          .median = 100, .ranks = 3, .ratio = 1.15 - r / 100.0, .reason = "slow GEMM"});
  const std::string out = run_summary(failed_run(), &m);
  const std::string block = out.substr(out.find("Diagnosis\n"));
  EXPECT_EQ(block.substr(0, block.find("SUBFAIL")),
            "Diagnosis\n"
            "  rank 0: slow GEMM (115 us vs median 100)\n"
            "  rank 1: slow GEMM (114 us vs median 100)\n"
            "  rank 2: slow GEMM (113 us vs median 100)\n"
            "  rank 3: slow GEMM (112 us vs median 100)\n"
            "  and 3 more finding(s): every one in the JSON report's diagnosis.outliers\n");
  m.outliers.clear();
  EXPECT_NE(run_summary(failed_run(), &m).find("Diagnosis\n  no outlier among 3 ranks\n"), std::string::npos);
}

// Issue 46: 512 ranks print 12 table lines, not 512: each column's min, median and max,
// the 8 slowest and where the other 504 are. The console grows by 10 lines from 2 ranks.
TEST(RunSummary, PastEightRanksASummaryAndTheSlowest) {
  auto m = two_ranks();
  const metrics::RankMetrics model = m.per_rank[0];
  m.per_rank.clear();
  for (int r = 0; r < 512; ++r) {
    m.per_rank.push_back(model);
    m.per_rank.back().rank = r;
    m.per_rank.back().total_time_us = 800000 + 100 * r;
  }
  const std::string out = run_summary(failed_run(), &m);
  const std::string table = out.substr(out.find("rank "), out.find("run: avg") - out.find("rank "));
  EXPECT_EQ(table,
            "rank   parser                 iteration time ms  compute comm (CVS)  exposed comm  overlap\n"
            "min                                     800.000   11.49%     61.14%        61.14%   11.17%\n"
            "median                                  825.550   11.49%     61.14%        61.14%   11.17%\n"
            "max                                     851.100   11.49%     61.14%        61.14%   11.17%\n"
            "504    tracelens_gpu_timeline           850.400   11.49%     61.14%        61.14%   11.17%\n"
            "505    tracelens_gpu_timeline           850.500   11.49%     61.14%        61.14%   11.17%\n"
            "506    tracelens_gpu_timeline           850.600   11.49%     61.14%        61.14%   11.17%\n"
            "507    tracelens_gpu_timeline           850.700   11.49%     61.14%        61.14%   11.17%\n"
            "508    tracelens_gpu_timeline           850.800   11.49%     61.14%        61.14%   11.17%\n"
            "509    tracelens_gpu_timeline           850.900   11.49%     61.14%        61.14%   11.17%\n"
            "510    tracelens_gpu_timeline           851.000   11.49%     61.14%        61.14%   11.17%\n"
            "511    tracelens_gpu_timeline           851.100   11.49%     61.14%        61.14%   11.17%\n"
            "8 of 512 ranks listed (the outliers, then the slowest); 504 left out; every rank: "
            "aorta_benchmark_report.json (per_rank_summary)\n");
  auto small = two_ranks();
  const auto lines = [](const std::string& text) { return std::count(text.begin(), text.end(), '\n'); };
  EXPECT_EQ(lines(out) - lines(run_summary(failed_run(), &small)), 10);
}

// Issue 46: 64 nodes' collection sub-tests are one line and the failed node's SUBFAIL,
// not 64 lines; 8 nodes are each a line, as before.
TEST(RunSummary, PastEightNodesTheirSubTestsAreOneLine) {
  auto nodes = [](int count) {
    RunRecord run = failed_run();
    StageResult collect;
    collect.name = collect.stage = "test_collect_traces";
    collect.outcome = job::Outcome::kFailed;
    for (int n = 1; n <= count; ++n)
      collect.subtests.push_back({.kind = job::SubTestKind::kTraceCollection, .key = "host",
                                  .value = "node" + std::to_string(n),
                                  .outcome = n == 17 ? job::Outcome::kFailed : job::Outcome::kPassed});
    run.stages.insert(run.stages.begin(), collect);
    return run_summary(run, nullptr);
  };
  const std::string many = nodes(64);
  EXPECT_NE(many.find("\nSUBFAIL [trace collection] (host=node17): failed\n[trace collection] 64 nodes: 63 passed, 1 "
                      "failed: node17; each node's sub-test in the JUnit file\n"),
            std::string::npos)
      << many;
  EXPECT_EQ(many.find("SUBPASS [trace collection]"), std::string::npos) << many;
  const std::string few = nodes(8);
  EXPECT_NE(few.find("SUBPASS [trace collection] (host=node8): passed\n"), std::string::npos) << few;
  EXPECT_EQ(few.find(" nodes: "), std::string::npos) << few;
}

TEST(RunSummary, WithoutMetricsNoTable) {
  RunRecord run = failed_run();
  run.stages = {run.stages.back()};
  EXPECT_EQ(run_summary(run, nullptr), "== aorta_distributed PASSED: 1 passed, 0 failed, 0 skipped of 1 tests; run r1, 42.0 s\n");
}

}  // namespace
}  // namespace aorta::report
