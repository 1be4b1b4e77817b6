// The gates, the gate columns of the metric catalogue's rows: each gate's metric, unit,
// range and text.
// Expected numbers are worked out by hand on the original's two-rank fixture:
// rank 1 12000/9000/4000 us, rank 0 10000/8000/3000 us (total/compute/comm), so
// avg iteration 11 ms, compute ratio (0.75 + 0.8) / 2 = 0.775, overlap ratio
// (1000/4000 + 1000/3000) / 2 = 0.2916..., variance sqrt(2e6) / 11000 = 0.12856...
#include "metrics/threshold_catalogue.h"

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "metrics/run_metrics.h"
#include "tests/rank_fixture.h"

namespace aorta::metrics {
namespace {

using aorta::testing::rank_metrics;

RunMetrics fixture_run() {
  return aggregate({rank_metrics(1, 12000, 9000, 4000), rank_metrics(0, 10000, 8000, 3000)}).value();
}

// The gates in the order the Run Deck lists its tiers (CVS's four first): the one test
// of that order. Each position is taken once, so a new gate cannot share one.
TEST(ThresholdCatalogue, GatesInTheDecksTierOrder) {
  std::vector<std::string> keys;
  std::set<std::string> tiers;
  int position = 0;
  for (const auto& spec : threshold_catalogue()) {
    keys.emplace_back(spec.key);
    tiers.insert(spec.tier);
    EXPECT_EQ(spec.position, position++) << spec.key;
    EXPECT_EQ(find_threshold(spec.key), &spec);
    // The direction is part of the key's name in every threshold file.
    EXPECT_EQ(std::string(spec.key).substr(0, 4), std::string(kind_name(spec.kind)) + "_");
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"max_avg_iteration_ms", "min_compute_ratio", "min_overlap_ratio",
                                            "max_time_variance_ratio", "max_avg_step_time_ms", "max_step_time_cv",
                                            "max_rank_compute_slowdown_ratio", "min_allreduce_busbw_gbps",
                                            "min_allgather_busbw_gbps", "min_reduce_scatter_busbw_gbps",
                                            "max_gpu_uncorrectable_errors", "max_gpu_throttled_share",
                                            "max_pcie_links_downgraded"}));
  EXPECT_EQ(tiers.size(), keys.size());
  EXPECT_EQ(find_threshold("max_avg_iteration_us"), nullptr);
}

TEST(ThresholdCatalogue, EachGateReadsItsMetric) {
  EXPECT_STREQ(find_threshold("min_compute_ratio")->metric, "avg_compute_ratio");
  EXPECT_STREQ(find_threshold("max_avg_iteration_ms")->metric, "avg_iteration_time_ms");
  RunMetrics run = fixture_run();
  EXPECT_DOUBLE_EQ(*find_threshold("max_avg_iteration_ms")->value(run), 11.0);
  EXPECT_DOUBLE_EQ(*find_threshold("min_compute_ratio")->value(run), 0.775);
  EXPECT_DOUBLE_EQ(*find_threshold("min_overlap_ratio")->value(run), (0.25 + 1.0 / 3) / 2);
  EXPECT_NEAR(*find_threshold("max_time_variance_ratio")->value(run), std::sqrt(2e6) / 11000, 1e-12);
  run.time_variance_ratio.reset();  // a zero mean
  EXPECT_FALSE(find_threshold("max_time_variance_ratio")->value(run).has_value());
}

TEST(ThresholdCatalogue, UnitsAndRanges) {
  EXPECT_EQ(find_threshold("max_avg_iteration_ms")->unit(), MetricUnit::kMs);
  EXPECT_TRUE(std::isinf(find_threshold("max_avg_iteration_ms")->max_limit));
  EXPECT_EQ(find_threshold("min_compute_ratio")->max_limit, 1.0);
  EXPECT_EQ(find_threshold("min_overlap_ratio")->max_limit, 1.0);
  // std / mean above 1 is a real (if bad) run, so a variance gate above 1 is allowed.
  EXPECT_TRUE(std::isinf(find_threshold("max_time_variance_ratio")->max_limit));
  for (const char* key : {"min_compute_ratio", "min_overlap_ratio", "max_time_variance_ratio"})
    EXPECT_EQ(find_threshold(key)->unit(), MetricUnit::kFraction) << key;
}

TEST(ThresholdCatalogue, LimitsPrintInTheGatesUnit) {
  const ThresholdSpec& ms = *find_threshold("max_avg_iteration_ms");
  const ThresholdSpec& ratio = *find_threshold("min_compute_ratio");
  EXPECT_EQ(format_limit(ms, 60000), "60000 ms");
  EXPECT_EQ(format_limit(ms, 835.25), "835.25 ms");
  EXPECT_EQ(format_limit(ms, 0), "0 ms");
  EXPECT_EQ(format_limit(ratio, 0.5), "0.5");
  EXPECT_EQ(format_limit(ratio, 0.001), "0.001");
  EXPECT_EQ(format_limit(ratio, 1), "1");
  EXPECT_EQ(format_actual(ms, 835.2), "835.20 ms");
  EXPECT_EQ(format_actual(ratio, 0.775), "0.7750");
  const ThresholdSpec& slowdown = *find_threshold("max_rank_compute_slowdown_ratio");
  const ThresholdSpec& busbw = *find_threshold("min_allreduce_busbw_gbps");
  EXPECT_EQ(format_limit(slowdown, 1.1), "1.1");
  EXPECT_EQ(format_actual(slowdown, 1.14428), "1.1443");
  EXPECT_EQ(format_limit(busbw, 40), "40 GB/s");
  EXPECT_EQ(format_actual(busbw, 41.204), "41.20 GB/s");
}

// The diagnosis gates: a slowdown ratio is >= 1 by definition (the slowest rank is at
// or above the median), so its range starts at 1; bandwidths have no upper bound.
TEST(ThresholdCatalogue, DiagnosisGatesUnitsAndRanges) {
  const ThresholdSpec& slowdown = *find_threshold("max_rank_compute_slowdown_ratio");
  EXPECT_EQ(slowdown.unit(), MetricUnit::kRatio);
  EXPECT_EQ(slowdown.min_limit, 1.0);
  EXPECT_TRUE(std::isinf(slowdown.max_limit));
  for (const char* key : {"min_allreduce_busbw_gbps", "min_allgather_busbw_gbps", "min_reduce_scatter_busbw_gbps"}) {
    EXPECT_EQ(find_threshold(key)->unit(), MetricUnit::kGbps) << key;
    EXPECT_EQ(find_threshold(key)->min_limit, 0.0) << key;
    EXPECT_TRUE(std::isinf(find_threshold(key)->max_limit)) << key;
    EXPECT_NE(find_threshold(key)->unavailable, nullptr) << key;
  }
}

// The fixture's ranks have no diagnosis: each configured diagnosis gate fails, saying why.
TEST(ThresholdCatalogue, DiagnosisGatesWithoutADiagnosisFailAsNotAvailable) {
  auto checks = check_thresholds(fixture_run(), {{"max_rank_compute_slowdown_ratio", 1.3},
                                                 {"min_allreduce_busbw_gbps", 1.0}});
  ASSERT_EQ(checks.size(), 2u);
  for (const auto& c : checks) {
    EXPECT_FALSE(c.passed) << c.key;
    EXPECT_FALSE(c.actual.has_value()) << c.key;
    EXPECT_NE(c.message.find("not available: "), std::string::npos) << c.message;
  }
  EXPECT_EQ(checks[0].message,
            "Rank compute slowdown not available: fewer than 3 ranks have compute kernels on a GPU timeline");
  EXPECT_EQ(checks[1].unit, MetricUnit::kGbps);
}

TEST(ThresholdCatalogue, ChecksCarryTheGatesKindAndUnit) {
  auto checks = check_thresholds(fixture_run(), {{"max_avg_iteration_ms", 10.0}, {"min_compute_ratio", 0.5}});
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].unit, MetricUnit::kMs);
  EXPECT_EQ(checks[0].kind, ThresholdKind::kMax);
  EXPECT_EQ(checks[1].unit, MetricUnit::kFraction);
  EXPECT_EQ(checks[1].kind, ThresholdKind::kMin);
  EXPECT_FALSE(checks[0].passed);
  EXPECT_EQ(checks[0].message, "Average iteration time 11.00ms exceeds threshold 10ms (the whole profiled window)");
  EXPECT_TRUE(checks[1].passed);
}

// A key the loader would refuse, built by hand: kept, unchecked, and with no gate (its
// name's "max_" is not read as one): no kind, no unit.
TEST(ThresholdCatalogue, AnUnknownKeyIsKeptWithoutAGate) {
  auto odd = check_thresholds(fixture_run(), {{"max_unknown", 1.0}});
  ASSERT_EQ(odd.size(), 1u);
  EXPECT_TRUE(odd[0].passed);
  EXPECT_FALSE(odd[0].actual.has_value());
  EXPECT_FALSE(odd[0].kind.has_value());
  EXPECT_FALSE(odd[0].unit.has_value());
}

// The units print as gates print them: a fraction and a ratio bare, the rest named.
TEST(ThresholdCatalogue, FractionsAndRatiosPrintBare) {
  EXPECT_STREQ(gate_unit_text(MetricUnit::kFraction), "");
  EXPECT_STREQ(gate_unit_text(MetricUnit::kRatio), "");
  EXPECT_STREQ(gate_unit_text(MetricUnit::kMs), "ms");
  EXPECT_STREQ(gate_unit_text(MetricUnit::kGbps), "GB/s");
  EXPECT_STREQ(kind_name(ThresholdKind::kMax), "max");
  EXPECT_STREQ(kind_name(ThresholdKind::kMin), "min");
}

}  // namespace
}  // namespace aorta::metrics
