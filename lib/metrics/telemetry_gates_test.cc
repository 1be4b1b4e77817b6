// The telemetry gates through check_thresholds, as test_validate_thresholds runs them:
// a failing gate names the node and GPU; without telemetry a configured gate fails as
// unavailable, and an unconfigured one is no check at all.
#include "metrics/telemetry_gates.h"

#include <gtest/gtest.h>

#include "metrics/run_metrics.h"

namespace aorta::metrics {
namespace {

using telemetry::GpuTelemetry;

GpuTelemetry gpu(const std::string& host, int index) {
  GpuTelemetry g;
  g.host = host;
  g.gpu = index;
  g.samples = 60;
  g.ecc = telemetry::ErrorCounts{};
  g.link.emplace();
  g.link->width_current = g.link->width_max = 16;
  return g;
}

// node1 and node3, GPUs 0..3 each, healthy.
RunMetrics fleet() {
  RunMetrics run;
  run.telemetry = telemetry::RunTelemetry{};
  for (const char* host : {"node1", "node3"})
    for (int i = 0; i < 4; ++i) run.telemetry->gpus.push_back(gpu(host, i));
  return run;
}

GpuTelemetry& gpu_of(RunMetrics& run, size_t node, int index) { return run.telemetry->gpus[node * 4 + index]; }

ThresholdCheck check(const RunMetrics& run, const std::string& key, double limit) {
  const auto checks = check_thresholds(run, {config::Threshold{key, limit}});
  EXPECT_EQ(checks.size(), 1u);
  return checks.at(0);
}

TEST(TelemetryGates, RisingUncorrectableErrorsFailTheGateNamingNodeAndGpu) {
  RunMetrics run = fleet();
  EXPECT_TRUE(check(run, "max_gpu_uncorrectable_errors", 0).passed);
  gpu_of(run, 1, 1).ecc->uncorrectable = 1;
  gpu_of(run, 1, 3).ecc->uncorrectable = 2;
  gpu_of(run, 0, 2).ecc->correctable = 40;  // corrected: not this gate's
  const ThresholdCheck c = check(run, "max_gpu_uncorrectable_errors", 0);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.actual, 2);
  EXPECT_EQ(c.unit, MetricUnit::kCount);
  ASSERT_TRUE(c.subject);
  EXPECT_EQ(c.subject->node, "node3");
  EXPECT_EQ(c.subject->gpu, 3);
  EXPECT_EQ(c.subject->rank, std::nullopt);
  EXPECT_EQ(c.message, "2 new uncorrectable ECC/RAS errors on a GPU during the run, exceeds threshold 0: node3 GPU 3");
}

TEST(TelemetryGates, LargestThrottledShareOfAnyGpu) {
  RunMetrics run = fleet();
  gpu_of(run, 0, 1).throttle_share = {{"hw_thermal_slowdown", 0.41}, {"sw_power_cap", 0.2}};
  gpu_of(run, 1, 0).throttle_share = {{"gpu_idle", 0.9}};  // idle: no throttle
  const ThresholdCheck c = check(run, "max_gpu_throttled_share", 0.25);
  EXPECT_FALSE(c.passed);
  EXPECT_DOUBLE_EQ(*c.actual, 0.41);
  EXPECT_EQ(c.message, "A GPU was throttled 41.00% of the window, exceeds threshold 25.00%: node1 GPU 1");
  EXPECT_TRUE(check(run, "max_gpu_throttled_share", 0.5).passed);
}

TEST(TelemetryGates, DowngradedLinksCountedAndTheFirstNamed) {
  RunMetrics run = fleet();
  EXPECT_EQ(pcie_links_downgraded(run), 0);
  EXPECT_EQ(first_downgraded_link(run), std::nullopt);
  for (int i : {2, 3}) {
    gpu_of(run, 1, i).link->width_current = 8;
    gpu_of(run, 1, i).link->downgraded = true;
  }
  const ThresholdCheck c = check(run, "max_pcie_links_downgraded", 0);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.actual, 2);
  EXPECT_EQ(c.message, "2 GPU(s) with a PCIe link below its maximum, exceeds threshold 0: node3 GPU 2");
}

TEST(TelemetryGates, WithoutTelemetryAConfiguredGateIsUnavailable) {
  const RunMetrics run;  // no node sampled
  for (const char* key : {"max_gpu_uncorrectable_errors", "max_gpu_throttled_share", "max_pcie_links_downgraded"}) {
    const ThresholdCheck c = check(run, key, 0);
    EXPECT_FALSE(c.passed) << key;
    EXPECT_EQ(c.actual, std::nullopt) << key;
    EXPECT_EQ(c.message, find_threshold(key)->unavailable) << key;
    EXPECT_EQ(c.subject, std::nullopt) << key;
  }
  EXPECT_EQ(find_threshold("max_gpu_uncorrectable_errors")->unavailable,
            std::string("GPU uncorrectable errors not available: no GPU telemetry with ECC/RAS counters (no GPU tool on "
                        "the nodes, or none reports them)"));
  // Telemetry whose tool reports no ECC counters or link state: those two are unavailable.
  RunMetrics bare = fleet();
  for (auto& g : bare.telemetry->gpus) g.ecc.reset(), g.link.reset();
  EXPECT_FALSE(check(bare, "max_gpu_uncorrectable_errors", 0).actual);
  EXPECT_FALSE(check(bare, "max_pcie_links_downgraded", 0).actual);
  EXPECT_EQ(check(bare, "max_gpu_throttled_share", 0).actual, 0);
}

}  // namespace
}  // namespace aorta::metrics
