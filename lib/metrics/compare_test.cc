#include "metrics/compare.h"

#include <gtest/gtest.h>

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
  // Iteration 800 -> 840 ms: +40, ratio 1.05, 5 % worse. Compute ratio 0.5 -> 0.55: 10 % better.
  // Overlap 0.2 -> 0.1: 50 % worse, past the 20 % limit given to every metric.
  Comparison c = compare_runs(
      run({{"avg_iteration_time_ms", 800}, {"avg_compute_ratio", 0.5}, {"avg_overlap_ratio", 0.2}, {"only_here", 1}}),
      run({{"avg_iteration_time_ms", 840}, {"avg_compute_ratio", 0.55}, {"avg_overlap_ratio", 0.1}}),
      {{"", 20}, {"avg_iteration_time_ms", 4}});
  ASSERT_EQ(c.metrics.size(), 3u);  // shown in the fixed order, only keys both runs have
  const auto& iteration = c.metrics[0];
  EXPECT_EQ(iteration.key, "avg_iteration_time_ms");
  EXPECT_DOUBLE_EQ(iteration.change, 40);
  EXPECT_DOUBLE_EQ(*iteration.ratio, 1.05);
  EXPECT_DOUBLE_EQ(*iteration.regression_pct, 5);
  EXPECT_DOUBLE_EQ(*iteration.limit_pct, 4);  // its own limit wins over the general one
  EXPECT_EQ(iteration.verdict, "regressed");
  const auto& compute = c.metrics[1];
  EXPECT_EQ(compute.key, "avg_compute_ratio");
  EXPECT_NEAR(*compute.regression_pct, -10, 1e-12);
  EXPECT_EQ(compute.verdict, "better");
  const auto& overlap = c.metrics[2];
  EXPECT_NEAR(*overlap.regression_pct, 50, 1e-12);
  EXPECT_EQ(overlap.verdict, "regressed");
  EXPECT_TRUE(c.regressed);
  EXPECT_FALSE(c.steps);
}

TEST(CompareRuns, WithoutLimitsNothingRegressesAndZeroBaselinesAreNotJudged) {
  Comparison c = compare_runs(run({{"avg_iteration_time_ms", 100}, {"avg_overlap_ratio", 0}, {"avg_comm_ratio", 0}}),
                              run({{"avg_iteration_time_ms", 300}, {"avg_overlap_ratio", 0.3}, {"avg_comm_ratio", 0}}),
                              {});
  ASSERT_EQ(c.metrics.size(), 3u);
  EXPECT_EQ(c.metrics[0].verdict, "worse");
  EXPECT_EQ(c.metrics[1].key, "avg_comm_ratio");
  EXPECT_EQ(c.metrics[1].verdict, "same");
  EXPECT_EQ(c.metrics[2].verdict, "n/a");
  EXPECT_FALSE(c.metrics[2].ratio);
  EXPECT_FALSE(c.regressed);
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

}  // namespace
}  // namespace aorta::metrics
