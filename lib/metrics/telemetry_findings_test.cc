// The telemetry joined to the diagnosis, on hand-made ranks and GPUs: four ranks on
// node3's GPUs 0..3 (rank r on GPU r), and each GPU's telemetry over the same window.
#include "metrics/telemetry_findings.h"

#include <gtest/gtest.h>

#include "tests/telemetry_fixture.h"

namespace aorta::metrics {
namespace {

using aorta::testing::fleet_with_hot_gpu3;
using aorta::testing::healthy_gpu;
using aorta::testing::kHotGpu3;

// A rank whose 10 GEMMs take `gemm_us` each, on node3's GPU r.
RankMetrics rank_on_gpu(int r, double gemm_us) {
  RankMetrics m;
  m.rank = r;
  m.node = "node3";
  m.gpu = r;
  m.source = "rank" + std::to_string(r) + ".json";
  RankDiagnosis d;
  d.classes.push_back({"gemm", 10, 10 * gemm_us, 0.5});
  m.diagnosis = d;
  return m;
}

RunMetrics run_of(std::vector<RankMetrics> ranks) {
  RunMetrics run;
  run.outliers = find_outliers(ranks);
  run.per_rank = std::move(ranks);
  return run;
}

TEST(TelemetryFindings, OutlierRankOnAThrottledGpuCarriesItsEvidence) {
  // GEMM 100, 100, 100, 117: rank 3 on GPU 3 is the outlier; GPU 3 is hot and throttled.
  RunMetrics run = run_of({rank_on_gpu(0, 100), rank_on_gpu(1, 100), rank_on_gpu(2, 100), rank_on_gpu(3, 117)});
  ASSERT_EQ(run.outliers.size(), 1u);
  run.telemetry = fleet_with_hot_gpu3();
  join_telemetry(run);
  ASSERT_EQ(run.outliers.size(), 1u);  // the GPU is named by its rank's finding, not twice
  EXPECT_EQ(run.outliers[0].rank, 3);
  EXPECT_EQ(run.outliers[0].evidence, kHotGpu3);
}

TEST(TelemetryFindings, HealthyFleetAddsNothing) {
  RunMetrics run = run_of({rank_on_gpu(0, 100), rank_on_gpu(1, 100), rank_on_gpu(2, 100), rank_on_gpu(3, 117)});
  run.telemetry.emplace().fleet_clock_median_mhz = 1980;
  for (int gpu = 0; gpu < 4; ++gpu) run.telemetry->gpus.push_back(healthy_gpu(gpu));
  run.telemetry->gpus[1].temperature_c["hotspot"].max = 86;  // 8 °C over the median: under the 10 °C floor
  run.telemetry->gpus[2].clock_median_mhz = 1800;             // 91% of the fleet's
  join_telemetry(run);
  ASSERT_EQ(run.outliers.size(), 1u);
  EXPECT_EQ(run.outliers[0].evidence, std::nullopt);
  for (const auto& g : run.telemetry->gpus) EXPECT_EQ(gpu_evidence(g, *run.telemetry), std::nullopt) << g.gpu;
}

TEST(TelemetryFindings, GpuOutOfLineIsAFindingWhenItsTimesAreNot) {
  RunMetrics run = run_of({rank_on_gpu(0, 100), rank_on_gpu(1, 100), rank_on_gpu(2, 100), rank_on_gpu(3, 100)});
  ASSERT_TRUE(run.outliers.empty());
  run.telemetry = fleet_with_hot_gpu3();
  run.telemetry->gpus[1].link->width_current = 8;  // of x16
  run.telemetry->gpus[1].link->downgraded = true;
  run.telemetry->gpus[1].ecc = telemetry::ErrorCounts{.correctable = 0, .uncorrectable = 2};
  join_telemetry(run);
  ASSERT_EQ(run.outliers.size(), 2u);  // in the cluster's order
  const Finding& link = run.outliers[0];
  EXPECT_TRUE(link.of_gpu);
  EXPECT_EQ(link.node, "node3");
  EXPECT_EQ(link.gpu, 1);
  EXPECT_EQ(link.rank, std::nullopt);
  EXPECT_EQ(link.measure, "GPU telemetry");
  EXPECT_EQ(link.value, 2);  // two signs
  EXPECT_EQ(link.ranks, 4u);
  EXPECT_EQ(link.reason, "out of line in its telemetry, though no rank on it is by its times (yet)");
  EXPECT_EQ(link.evidence, "its GPU has its PCIe link at x8 of x16, had 2 new uncorrectable ECC/RAS errors");
  EXPECT_EQ(run.outliers[1].gpu, 3);
  EXPECT_EQ(run.outliers[1].evidence, kHotGpu3);
}

TEST(TelemetryFindings, CorrectableErrorsAreANote) {
  telemetry::RunTelemetry t = fleet_with_hot_gpu3();
  t.gpus[0].ecc->correctable = 12;
  EXPECT_EQ(gpu_evidence(t.gpus[0], t), "its GPU had 12 new correctable ECC/RAS errors (a note: corrected, but a "
                                        "rising count foretells uncorrectable ones)");
}

TEST(TelemetryFindings, HotOnlyAgainstARobustCutOfEnoughGpus) {
  telemetry::RunTelemetry t = fleet_with_hot_gpu3();
  t.gpus[3].throttle_share.clear();
  t.gpus[3].clock_median_mhz = 1980;
  EXPECT_EQ(gpu_evidence(t.gpus[3], t), "its GPU reached 97 °C (hotspot) against the fleet's median 78 °C");
  // Maxima 60, 70, 80, 97: median 75, MAD 10, cut 3.5 x 1.4826 x 10 = 51.9 °C: not hot.
  for (int gpu = 0; gpu < 3; ++gpu) t.gpus[gpu].temperature_c["hotspot"].max = 60 + 10 * gpu;
  EXPECT_EQ(gpu_evidence(t.gpus[3], t), std::nullopt);
  t.gpus.resize(2);  // fewer than kMinRanks GPUs report the sensor: no median to be far from
  t.gpus[1].temperature_c["hotspot"].max = 97;
  EXPECT_EQ(gpu_evidence(t.gpus[1], t), std::nullopt);
}

TEST(TelemetryFindings, JoinedTwiceTheSameAndWithoutTelemetryUnchanged) {
  RunMetrics run = run_of({rank_on_gpu(0, 100), rank_on_gpu(1, 100), rank_on_gpu(2, 100), rank_on_gpu(3, 117)});
  const std::vector<Finding> before = run.outliers;
  join_telemetry(run);  // no telemetry
  ASSERT_EQ(run.outliers.size(), before.size());
  EXPECT_EQ(run.outliers[0].reason, before[0].reason);
  EXPECT_EQ(run.outliers[0].evidence, std::nullopt);
  run.telemetry = fleet_with_hot_gpu3();
  run.telemetry->gpus[0].ecc->uncorrectable = 1;
  join_telemetry(run);
  join_telemetry(run);
  ASSERT_EQ(run.outliers.size(), 2u);
  EXPECT_EQ(run.outliers[0].evidence, kHotGpu3);
  EXPECT_TRUE(run.outliers[1].of_gpu);
  run.telemetry.reset();
  join_telemetry(run);
  ASSERT_EQ(run.outliers.size(), 1u);
  EXPECT_EQ(run.outliers[0].evidence, std::nullopt);
}

}  // namespace
}  // namespace aorta::metrics
