#include "metrics/compare.h"

#include <limits>

#include <gtest/gtest.h>

#include "metrics/run_mismatch.h"

namespace aorta::metrics {
namespace {

// U and p worked by hand: ranks, U = R1 - n1(n1+1)/2, mean n1 n2 / 2, variance
// n1 n2 / 12 ((n+1) - sum(t^3 - t) / (n(n-1))), z = (|U - mean| - 0.5) / sd,
// p = erfc(z / sqrt 2) (the erfc values from Python's math.erfc).
TEST(MannWhitney, SeparatedSamples) {
  // Baseline ranks 1,2,3: R1 = 6, U = 0; variance 9/12 * 7 = 5.25; z = 4 / sqrt(5.25).
  MannWhitney r = mann_whitney({1, 2, 3}, {4, 5, 6});
  EXPECT_DOUBLE_EQ(r.u, 0);
  EXPECT_NEAR(r.p, 0.0808555983700523, 1e-12);  // scipy's mannwhitneyu(method="asymptotic") agrees
  EXPECT_DOUBLE_EQ(mann_whitney({4, 5, 6}, {1, 2, 3}).p, r.p);  // two-sided
  EXPECT_DOUBLE_EQ(mann_whitney({4, 5, 6}, {1, 2, 3}).u, 9);
}

TEST(MannWhitney, TiesTakeTheirAverageRank) {
  // Sorted 1b 2b 2b 2c 3c 4c: the three 2s rank 3; R1 = 1 + 3 + 3 = 7, U = 1.
  // Ties: 3^3 - 3 = 24; variance 9/12 * (7 - 24/30) = 4.65; z = 3 / sqrt(4.65).
  MannWhitney r = mann_whitney({1, 2, 2}, {2, 3, 4});
  EXPECT_DOUBLE_EQ(r.u, 1);
  EXPECT_NEAR(r.p, 0.16415972847851523, 1e-12);
}

TEST(MannWhitney, NoEvidenceGivesOne) {
  EXPECT_DOUBLE_EQ(mann_whitney({5, 5}, {5, 5, 5}).p, 1);  // every value equal
  EXPECT_DOUBLE_EQ(mann_whitney({}, {1, 2}).p, 1);
  EXPECT_DOUBLE_EQ(mann_whitney({1, 2}, {1, 2}).p, 1);  // |U - mean| = 0, corrected to 0
}

RunFigures run(std::map<std::string, double> performance, std::vector<double> steps = {}) {
  return {"x", std::move(performance), std::move(steps)};
}

TEST(CompareRuns, DirectionsChangesRatiosAndLimits) {
  // Iteration 800 -> 840 ms: +40, ratio 1.05, 5 % worse, past its own 4 % limit (no step
  // times: judged by relative change). Compute ratio 0.5 -> 0.55: 5 points better.
  // Overlap 0.2 -> 0.1: 10 points worse; a bare limit gates only the headline times, so
  // only its own limit (8 points) makes it regress.
  Comparison c = compare_runs(
      run({{"avg_iteration_time_ms", 800}, {"avg_compute_ratio", 0.5}, {"avg_overlap_ratio", 0.2}, {"only_here", 1}}),
      run({{"avg_iteration_time_ms", 840}, {"avg_compute_ratio", 0.55}, {"avg_overlap_ratio", 0.1}}),
      {{"", 20}, {"avg_iteration_time_ms", 4}, {"avg_overlap_ratio", 8}});
  ASSERT_EQ(c.metrics.size(), 3u);  // shown in the fixed order, only keys both runs have
  const auto& iteration = c.metrics[0];
  EXPECT_EQ(iteration.key, "avg_iteration_time_ms");
  EXPECT_DOUBLE_EQ(iteration.change, 40);
  EXPECT_DOUBLE_EQ(*iteration.ratio, 1.05);
  EXPECT_DOUBLE_EQ(*iteration.regression_pct, 5);
  EXPECT_DOUBLE_EQ(*iteration.limit_pct, 4);  // its own limit wins over the general one
  EXPECT_EQ(iteration.judged, Judged::kRelative);
  EXPECT_EQ(iteration.verdict, "regressed");
  const auto& compute = c.metrics[1];
  EXPECT_EQ(compute.key, "avg_compute_ratio");
  EXPECT_EQ(compute.judged, Judged::kPoints);
  EXPECT_NEAR(*compute.regression_points, -5, 1e-12);
  EXPECT_FALSE(compute.limit_pct);  // the bare 20 is for the headline times
  EXPECT_EQ(compute.verdict, "better");
  const auto& overlap = c.metrics[2];
  EXPECT_NEAR(*overlap.regression_points, 10, 1e-12);
  EXPECT_NEAR(*overlap.regression_pct, 50, 1e-12);  // shown, not judged: the points are
  EXPECT_EQ(overlap.verdict, "regressed");
  EXPECT_TRUE(c.regressed);
  EXPECT_FALSE(c.steps);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0].rfind("no step times in both runs", 0), 0u) << c.warnings[0];
}

TEST(CompareRuns, WithoutLimitsNothingRegressesAndFractionsAreJudgedInPoints) {
  Comparison c = compare_runs(run({{"avg_iteration_time_ms", 100}, {"avg_overlap_ratio", 0}, {"avg_comm_ratio", 0}}),
                              run({{"avg_iteration_time_ms", 300}, {"avg_overlap_ratio", 0.3}, {"avg_comm_ratio", 0}}),
                              {});
  ASSERT_EQ(c.metrics.size(), 3u);
  EXPECT_EQ(c.metrics[0].verdict, "worse");
  EXPECT_EQ(c.metrics[1].key, "avg_comm_ratio");
  EXPECT_EQ(c.metrics[1].verdict, "same");
  // From 0 to 0.3: no ratio, but 30 points of the window, better for overlap.
  EXPECT_EQ(c.metrics[2].verdict, "better");
  EXPECT_FALSE(c.metrics[2].ratio);
  EXPECT_NEAR(*c.metrics[2].regression_points, -30, 1e-12);
  EXPECT_FALSE(c.regressed);
}

// Issue 31, 8: a noise model. Near-zero fractions move by points, not by "94 % worse";
// times with enough step samples are "same" unless the U test finds them different.
TEST(CompareRuns, ChangesWithinNoiseAreSame) {
  // Overlap 0.016 -> 0.001: 94 % worse relatively, 1.5 points absolutely: worse, not
  // regressed under a 2-point limit; 0.016 -> 0.010 (0.6 points) is noise: same.
  Comparison tiny = compare_runs(run({{"avg_overlap_ratio", 0.016}}), run({{"avg_overlap_ratio", 0.001}}),
                                 {{"avg_overlap_ratio", 2}});
  EXPECT_NEAR(*tiny.metrics[0].regression_pct, 93.75, 1e-9);
  EXPECT_NEAR(*tiny.metrics[0].regression_points, 1.5, 1e-9);
  EXPECT_EQ(tiny.metrics[0].verdict, "worse");
  EXPECT_EQ(compare_runs(run({{"avg_overlap_ratio", 0.016}}), run({{"avg_overlap_ratio", 0.010}}), {})
                .metrics[0].verdict,
            "same");
  // Nine steps a side, interleaved (U = 36 of 81, p = 0.72): the 0.3 % longer window is noise,
  // and no limit can call it a regression.
  const std::vector<double> a = {100, 102, 104, 106, 108, 110, 112, 114, 116};
  const std::vector<double> b = {101, 103, 105, 107, 109, 111, 113, 115, 117};
  Comparison noisy = compare_runs(run({{"avg_iteration_time_ms", 1000}}, a), run({{"avg_iteration_time_ms", 1003}}, b),
                                  {{"", 0.1}});
  EXPECT_GT(noisy.steps->test.p, kSignificance);
  EXPECT_EQ(noisy.metrics[0].judged, Judged::kSteps);
  EXPECT_EQ(noisy.metrics[0].verdict, "same");
  EXPECT_FALSE(noisy.regressed);
  EXPECT_TRUE(noisy.warnings.empty());
  // Nine steps a side, all slower (p = 0.0004): the window's 5 % is a change, past 1 %.
  std::vector<double> slow;
  for (double x : a) slow.push_back(x + 20);
  Comparison slower = compare_runs(run({{"avg_iteration_time_ms", 1000}}, a), run({{"avg_iteration_time_ms", 1050}}, slow),
                                   {{"", 1}});
  EXPECT_LT(slower.steps->test.p, kSignificance);
  EXPECT_EQ(slower.metrics[0].verdict, "regressed");
  // Eight a side: too few to trust the U test; judged by relative change, with a warning.
  Comparison few = compare_runs(run({{"avg_iteration_time_ms", 1000}}, {a.begin(), a.end() - 1}),
                                run({{"avg_iteration_time_ms", 1003}}, {b.begin(), b.end() - 1}), {});
  EXPECT_EQ(few.metrics[0].judged, Judged::kRelative);
  EXPECT_EQ(few.metrics[0].verdict, "worse");
  ASSERT_EQ(few.warnings.size(), 1u);
  EXPECT_EQ(few.warnings[0].rfind("8 vs 8 step times, fewer than 9 a side", 0), 0u) << few.warnings[0];
}

TEST(CompareRuns, StepTimesGetAVerdict) {
  Comparison slower = compare_runs(run({}, {200, 201, 202, 203, 204, 205}), run({}, {210, 211, 212, 213, 214, 215}), {});
  ASSERT_TRUE(slower.steps);
  EXPECT_EQ(slower.steps->verdict, "slower");  // U = 0 over 6 and 6: p = 0.0051
  EXPECT_LT(slower.steps->test.p, kSignificance);
  EXPECT_DOUBLE_EQ(slower.steps->baseline_median_ms, 202.5);
  EXPECT_DOUBLE_EQ(slower.steps->candidate_median_ms, 212.5);
  EXPECT_EQ(compare_runs(run({}, {210, 211, 212}), run({}, {200, 201, 202}), {}).steps->verdict,
            "no significant difference");  // p = 0.0809: three steps each cannot show it
  EXPECT_EQ(compare_runs(run({}, {1}), run({}, {2, 3}), {}).steps->verdict, "too few steps");
}

// The U test speaks for the central tendency only: a tail (the slowest step) is judged
// by its change, and a limit the user named for a metric still holds within noise.
TEST(CompareRuns, TailsAndNamedLimitsAreNotHiddenByTheUTest) {
  const std::vector<double> a = {100, 102, 104, 106, 108, 110, 112, 114, 116};
  std::vector<double> b = a;
  b.back() = 500;  // one stalled step: U 40 of 81 (eight ties), p 1
  Comparison c = compare_runs(run({{"max_step_time_ms", 116}, {"avg_iteration_time_ms", 1000}}, a),
                              run({{"max_step_time_ms", 500}, {"avg_iteration_time_ms", 1003}}, b),
                              {{"max_step_time_ms", 10}, {"avg_iteration_time_ms", 0.2}});
  EXPECT_GT(c.steps->test.p, kSignificance);
  ASSERT_EQ(c.metrics.size(), 2u);
  EXPECT_EQ(c.metrics[0].key, "avg_iteration_time_ms");
  EXPECT_EQ(c.metrics[0].judged, Judged::kSteps);
  EXPECT_EQ(c.metrics[0].verdict, "regressed");  // 0.3 % past the 0.2 % the user named
  EXPECT_EQ(c.metrics[1].key, "max_step_time_ms");
  EXPECT_EQ(c.metrics[1].judged, Judged::kRelative);
  EXPECT_EQ(c.metrics[1].verdict, "regressed");
  // The bare limit alone: the window is within the steps' noise, the tail still judged.
  Comparison bare = compare_runs(run({{"max_step_time_ms", 116}, {"avg_iteration_time_ms", 1000}}, a),
                                 run({{"max_step_time_ms", 500}, {"avg_iteration_time_ms", 1003}}, b), {{"", 0.2}});
  EXPECT_EQ(bare.metrics[0].verdict, "same");
  EXPECT_EQ(bare.metrics[1].verdict, "regressed");
}

// Issue 42, 6: a gated metric with no verdict passed its gate as "n/a". Every way a
// metric a limit reaches can be unjudgeable is named: a time from 0 to something (no
// percentage of 0), a value that is not finite, a headline time in one run only. What
// no limit reaches is only shown; a fraction from 0 is judged in points.
TEST(CompareRuns, AGatedMetricThatCannotBeJudgedIsNamed) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::string it = "avg_iteration_time_ms", zero = "its baseline is 0 (candidate 100): no change in % to judge";
  const std::vector<double> a = {100, 102, 104, 106, 108, 110, 112, 114, 116};  // p 0.72 against b: noise
  const std::vector<double> b = {101, 103, 105, 107, 109, 111, 113, 115, 117};
  const struct {
    std::map<std::string, double> base, cand, limits;
    std::vector<double> base_steps, cand_steps;
    std::string unjudged;  // "key: why", "" when every gated metric is judged
    std::string verdict;   // the first metric's
  } cases[] = {
      {{{it, 0}}, {{it, 100}}, {{"", 5}}, {}, {}, it + ": " + zero, "n/a"},
      {{{it, 0}}, {{it, 100}}, {{it, 5}}, {}, {}, it + ": " + zero, "n/a"},
      {{{it, 0}}, {{it, 100}}, {{it, 5}}, a, b, it + ": " + zero, "n/a"},  // the U test cannot speak for a named limit
      {{{it, 0}}, {{it, 100}}, {}, {}, {}, "", "n/a"},                     // no gate: shown only
      {{{it, 0}, {"avg_comm_ratio", 0.1}}, {{it, 100}, {"avg_comm_ratio", 0.1}}, {{"avg_comm_ratio", 5}}, {}, {}, "", "n/a"},
      {{{it, 0}}, {{it, 0}}, {{"", 5}}, {}, {}, "", "same"},  // no change: 0 % worse
      {{{it, inf}}, {{it, 100}}, {{"", 5}}, {}, {}, it + ": its baseline value is not a finite number (inf)", "n/a"},
      {{{it, 100}}, {{it, nan}}, {{"", 5}}, {}, {}, it + ": its candidate value is not a finite number (nan)", "n/a"},
      {{{it, 100}}, {{it, -inf}}, {{it, 5}}, {}, {}, it + ": its candidate value is not a finite number (-inf)", "n/a"},
      {{{"avg_comm_ratio", inf}}, {{"avg_comm_ratio", 0.2}}, {{"avg_comm_ratio", 5}}, {}, {},
       "avg_comm_ratio: its baseline value is not a finite number (inf)", "n/a"},
      {{{"avg_comm_ratio", 0}}, {{"avg_comm_ratio", 0.3}}, {{"avg_comm_ratio", 5}}, {}, {}, "", "regressed"},  // 30 points
      {{{it, 10}, {"avg_step_time_ms", 5}}, {{it, 10}}, {{"", 5}}, {}, {}, "avg_step_time_ms: in the baseline only", "same"},
      {{{it, 10}}, {{it, 10}, {"p95_step_time_ms", 5}}, {{"", 5}}, {}, {}, "p95_step_time_ms: in the candidate only", "same"},
      {{{it, 10}, {"avg_comm_ratio", 0.1}}, {{it, 10}}, {{"", 5}}, {}, {}, "", "same"},  // the bare limit: times only
  };
  for (const auto& c : cases) {
    Comparison got = compare_runs(run(c.base, c.base_steps), run(c.cand, c.cand_steps), c.limits);
    std::string unjudged;
    for (const auto& u : got.unjudged) unjudged += (unjudged.empty() ? "" : " | ") + u.key + ": " + u.why;
    EXPECT_EQ(unjudged, c.unjudged) << c.base.begin()->first << " " << c.base.begin()->second;
    ASSERT_FALSE(got.metrics.empty());
    EXPECT_EQ(got.metrics[0].verdict, c.verdict) << c.unjudged;
    EXPECT_FALSE(got.regressed && c.verdict != "regressed");
  }
}

RunFigures with_diagnosis(std::string source, DiagnosisFigures d) {
  RunFigures f{std::move(source), {{"avg_iteration_time_ms", 10}}, {}};
  f.diagnosis = std::move(d);
  return f;
}

constexpr uint64_t kMiB = 1 << 20;

// Shares of either run, 0 where absent: attention 0 -> 0.1 (+0.1, no ratio), GEMM
// 0.3 -> 0.3 (ratio 1, same), other compute 0.05 -> 0 (-0.05, ratio 0). Bus bandwidth:
// all-reduce 40 -> 30 GB/s at 4 MiB both (-10, ratio 0.75, worse: higher is better);
// all-gather at 1 MiB against 2 MiB: another measurement, n/a; reduce-scatter only in
// the baseline: left out. No limit reaches these rows, 0 % included.
TEST(CompareRuns, DiagnosisRowsAreInformational) {
  const RunFigures base = with_diagnosis(
      "b", {{{"gemm", 0.3}, {"other_compute", 0.05}}, {{"allreduce", {4 * kMiB, 40}}, {"allgather", {kMiB, 8}},
                                                       {"reduce_scatter", {kMiB, 5}}}});
  const RunFigures cand =
      with_diagnosis("c", {{{"gemm", 0.3}, {"attention", 0.1}}, {{"allreduce", {4 * kMiB, 30}}, {"allgather", {2 * kMiB, 9}}}});
  const Comparison c = compare_runs(base, cand, {{"", 0}});
  EXPECT_TRUE(c.no_diagnosis.empty());
  ASSERT_EQ(c.class_shares.size(), 3u);
  EXPECT_EQ(c.class_shares[0].kernel_class, "attention");
  EXPECT_DOUBLE_EQ(c.class_shares[0].change, 0.1);
  EXPECT_FALSE(c.class_shares[0].ratio);
  EXPECT_EQ(c.class_shares[0].verdict, "changed");
  EXPECT_EQ(c.class_shares[1].verdict, "same");
  EXPECT_DOUBLE_EQ(*c.class_shares[1].ratio, 1);
  EXPECT_DOUBLE_EQ(c.class_shares[2].change, -0.05);
  EXPECT_DOUBLE_EQ(*c.class_shares[2].ratio, 0);
  ASSERT_EQ(c.busbw.size(), 2u);
  EXPECT_EQ(c.busbw[0].collective, "allreduce");
  EXPECT_DOUBLE_EQ(c.busbw[0].change, -10);
  EXPECT_DOUBLE_EQ(*c.busbw[0].ratio, 0.75);
  EXPECT_EQ(c.busbw[0].verdict, "worse");
  EXPECT_EQ(compare_runs(cand, base, {}).busbw[0].verdict, "better");
  EXPECT_EQ(c.busbw[1].collective, "allgather");
  EXPECT_EQ(c.busbw[1].baseline_bytes, kMiB);
  EXPECT_EQ(c.busbw[1].candidate_bytes, 2 * kMiB);
  EXPECT_EQ(c.busbw[1].verdict, "n/a");
  EXPECT_EQ(compare_runs(base, base, {}).busbw[0].verdict, "same");
  EXPECT_FALSE(c.regressed);  // avg_iteration_time_ms is the same; the diagnosis rows gate nothing
}

TEST(CompareRuns, WithoutADiagnosisOnEitherSideNoRowsAndWhy) {
  RunFigures plain{"p.json", {{"avg_iteration_time_ms", 10}}, {}};
  plain.no_diagnosis = "no \"diagnosis\" object";
  const RunFigures diagnosed = with_diagnosis("d.json", {{{"gemm", 0.3}}, {}});
  const Comparison c = compare_runs(diagnosed, plain, {});
  EXPECT_TRUE(c.class_shares.empty());
  EXPECT_TRUE(c.busbw.empty());
  EXPECT_EQ(c.no_diagnosis, "candidate p.json: no \"diagnosis\" object");
  EXPECT_EQ(compare_runs(plain, diagnosed, {}).no_diagnosis, "baseline p.json: no \"diagnosis\" object");
}

// Issue 45, 6: a CPU run against an H200 run, or 1 rank against 4, was judged with no
// word. Each difference is one line, in a fixed order; the verdicts stay as they were.
TEST(CompareRuns, RunsOfDifferentKindsAreNamedAndStillJudged) {
  const std::string gpu = "tracelens_gpu_timeline", cpu = "cpu_timeline", scan = "basic_scan";
  RunFigures h200 = run({{"avg_iteration_time_ms", 100}});
  h200.rank_parsers = {gpu, gpu, gpu, gpu};
  h200.configuration = {{"nccl_channels", "112"}, {"rccl_branch", "develop"}};
  RunFigures host = run({{"avg_iteration_time_ms", 50}});
  host.rank_parsers = {cpu};
  host.configuration = {{"nccl_channels", "32"}, {"kernel_selection", "linked_only"}};
  const Comparison c = compare_runs(h200, host, {{"", 5}});
  EXPECT_EQ(c.mismatches,
            (std::vector<std::string>{
                "rank count differs: baseline 4 rank(s), candidate 1; the medians and spreads are over different ranks",
                "device differs: baseline GPU (tracelens_gpu_timeline x4), candidate CPU (cpu_timeline x1); the times "
                "are not of one machine, so a change is no regression",
                "nccl_channels differs: baseline 112, candidate 32; the runs are not set up alike"}));
  ASSERT_EQ(c.metrics.size(), 1u);
  EXPECT_EQ(c.metrics[0].verdict, "better");
  // One device, a rank on another parser: the parsers line, rank by rank.
  RunFigures scanned = h200;
  scanned.rank_parsers[2] = scan;
  EXPECT_EQ(device_kind(scanned.rank_parsers), "mixed");
  EXPECT_EQ(compare_runs(h200, scanned, {}).mismatches,
            (std::vector<std::string>{"device differs: baseline GPU (tracelens_gpu_timeline x4), candidate mixed "
                                      "(tracelens_gpu_timeline x3, basic_scan x1); the times are not of one machine, "
                                      "so a change is no regression"}));
  RunFigures scan_other = h200;
  scan_other.rank_parsers = {scan, scan};
  EXPECT_EQ(device_kind({"tracelens_excel", gpu}), "GPU");
  EXPECT_EQ(device_kind({scan}), "unknown");
  EXPECT_EQ(compare_runs(scan_other, RunFigures{scan_other}, {}).mismatches, std::vector<std::string>{});
  RunFigures excel = h200;
  excel.rank_parsers = {"tracelens_excel", gpu, gpu, gpu};
  EXPECT_EQ(compare_runs(h200, excel, {}).mismatches,
            (std::vector<std::string>{"parsers differ: baseline tracelens_gpu_timeline x4, candidate tracelens_excel "
                                      "x1, tracelens_gpu_timeline x3; the figures are not measured alike"}));
  // What one side does not record is no difference: a JSON of old, an analyze JSON.
  EXPECT_EQ(compare_runs(h200, run({{"avg_iteration_time_ms", 100}}), {}).mismatches, std::vector<std::string>{});
  EXPECT_EQ(compare_runs(h200, h200, {}).mismatches, std::vector<std::string>{});
}

}  // namespace
}  // namespace aorta::metrics
