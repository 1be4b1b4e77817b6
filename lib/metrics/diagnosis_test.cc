// The per-rank diagnosis on hand-made timelines: kernel classes, and bandwidths
// checked against nccl-tests' formulas computed by hand.
#include "metrics/diagnosis.h"

#include <tuple>

#include <gtest/gtest.h>

namespace aorta::metrics {
namespace {

using trace::CollectiveKey;
using trace::GpuClass;
using trace::GpuEvent;
using trace::KernelKind;

GpuEvent kernel(double ts, double dur, KernelKind kind, uint32_t collective = trace::kNoCollective) {
  const GpuClass cls = kind == KernelKind::kCollective ? GpuClass::kCommunication
                       : kind == KernelKind::kMemcpy   ? GpuClass::kMemcpy
                                                       : GpuClass::kComputation;
  return {ts, ts + dur, cls, kind, collective, 1};
}

std::vector<uint32_t> all(const trace::TraceData& d) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < d.gpu_events.size(); ++i) out.push_back(i);
  return out;
}

TEST(Diagnosis, BandwidthIsNcclTestsFormulaByHand) {
  trace::TraceData d;
  d.collectives = {{"allreduce", "Float", 1048576, 1048576, 4}, {"_allgather_base", "BFloat16", 1000, 8000, 8}};
  d.gpu_events.push_back(kernel(0, 100, KernelKind::kCollective, 0));
  d.gpu_events.push_back(kernel(200, 300, KernelKind::kCollective, 0));
  d.gpu_events.push_back(kernel(600, 16, KernelKind::kCollective, 1));
  const RankDiagnosis r = diagnose(d, all(d), 1000, trace::LaunchTimes(d));
  ASSERT_EQ(r.collectives.size(), 2u);
  // By name: _allgather_base first. S = 8000 elements * 2 bytes = 16000 B in 16 us:
  // 1 GB/s; busbw x 7/8.
  EXPECT_EQ(r.collectives[0].bytes, 16000u);
  EXPECT_DOUBLE_EQ(r.collectives[0].algbw_gbps, 1.0);
  EXPECT_DOUBLE_EQ(*r.collectives[0].busbw_gbps, 0.875);
  // S = 4194304 B, twice in 400 us: 8388608 B / 400e-6 s = 20.97152 GB/s; busbw x 2*3/4.
  EXPECT_EQ(r.collectives[1].bytes, 4194304u);
  EXPECT_EQ(r.collectives[1].count, 2u);
  EXPECT_DOUBLE_EQ(r.collectives[1].time_us, 400);
  EXPECT_DOUBLE_EQ(r.collectives[1].algbw_gbps, 20.97152);
  EXPECT_DOUBLE_EQ(*r.collectives[1].busbw_gbps, 31.45728);
  EXPECT_TRUE(r.missing.empty());
}

TEST(Diagnosis, KernelClassesAndTheirShareOfTheWindow) {
  trace::TraceData d;
  d.collectives = {{"allreduce", "Float", 8, 8, 2}};
  d.gpu_events = {kernel(0, 100, KernelKind::kGemm), kernel(50, 100, KernelKind::kGemm),
                  kernel(300, 50, KernelKind::kAttention), kernel(400, 10, KernelKind::kOtherCompute),
                  kernel(500, 40, KernelKind::kCollective, 0), kernel(600, 5, KernelKind::kMemcpy),
                  kernel(700, 2, KernelKind::kMemset), kernel(800, 1000, KernelKind::kGemm)};
  // The last GEMM is not among the selected events.
  const RankDiagnosis r = diagnose(d, {0, 1, 2, 3, 4, 5, 6}, 800, trace::LaunchTimes(d));
  ASSERT_EQ(r.classes.size(), 6u);
  const std::vector<std::string> names{"gemm", "attention", "other_compute", "collective:allreduce", "memcpy", "memset"};
  const std::vector<double> times{200, 50, 10, 40, 5, 2};  // overlapping GEMMs count twice
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(r.classes[i].name, names[i]);
    EXPECT_DOUBLE_EQ(r.classes[i].time_us, times[i]) << names[i];
    EXPECT_DOUBLE_EQ(r.classes[i].share, times[i] / 800) << names[i];
  }
  EXPECT_EQ(r.classes[0].kernels, 2u);
}

TEST(Diagnosis, MissingMetadataIsSaidNeverGuessed) {
  trace::TraceData d;
  d.collectives = {{"allreduce", "", 8, 8, 2}, {"allreduce", "Posit16", 8, 8, 2}, {"barrier", "Byte", 0, 0, 2}};
  d.gpu_events = {kernel(0, 10, KernelKind::kCollective, 0), kernel(20, 10, KernelKind::kCollective, 1),
                  kernel(40, 10, KernelKind::kCollective), kernel(60, 10, KernelKind::kCollective, 2)};
  const RankDiagnosis r = diagnose(d, all(d), 100, trace::LaunchTimes(d));
  ASSERT_EQ(r.missing.size(), 3u);
  EXPECT_EQ(r.missing[0].reason, "dtype Posit16 has no known size");
  EXPECT_EQ(r.missing[1].reason, "no Collective name");
  EXPECT_EQ(r.missing[2].reason, "no dtype");
  // The barrier moves no bytes: an algbw of 0, and no busbw factor.
  ASSERT_EQ(r.collectives.size(), 1u);
  EXPECT_EQ(r.collectives[0].collective, "barrier");
  EXPECT_EQ(r.collectives[0].algbw_gbps, 0);
  EXPECT_FALSE(r.collectives[0].busbw_gbps.has_value());
}

// HTA's split by hand. Kernels (ts, end, launched at): A [0, 100) at -5, B [50, 150)
// at 40, C [150.02, 200) at 140 (a 20 ns gap, launched before the GPU went idle), D
// [300, 310) at 250 (launched after the idle began at 200: host wait 100), E [400,
// 420) at 120 (launched long before: other 90), F [420, 430) with no launch (touches
// E: no gap), G [500, 510) with no launch (other 70, as HTA leaves an unlinked kernel),
// H [510.01, 520) launched at 510.005: a 10 ns gap, but launched after it began, so host
// wait (HTA asks host wait first).
TEST(Diagnosis, IdleSplitAsHtaDefinesIt) {
  trace::TraceData d;
  const std::vector<std::tuple<double, double, int64_t>> spans{{300, 10, 4}, {0, 100, 1},  {50, 100, 2},
                                                                {150.02, 49.98, 3}, {400, 20, 5}, {420, 10, 6},
                                                                {500, 10, 7}, {510.01, 9.99, 8}};
  for (const auto& [ts, dur, correlation] : spans) {
    GpuEvent e = kernel(ts, dur, KernelKind::kGemm);
    e.correlation = correlation;
    d.gpu_events.push_back(e);
  }
  // Runtime calls in file order; the second call of correlation 4 does not count.
  const std::vector<std::pair<int64_t, double>> calls{{1, -5},  {2, 40},  {3, 140},     {4, 250},
                                                      {5, 120}, {4, 100}, {8, 510.005}};
  for (const auto& [correlation, ts] : calls) d.runtime_launches.push_back({correlation, trace::kNoKey, ts, false});
  const IdleBreakdown idle = diagnose(d, all(d), 520, trace::LaunchTimes(d)).idle;
  EXPECT_EQ(idle.gaps, 5u);
  EXPECT_DOUBLE_EQ(idle.kernel_wait_us, 150.02 - 150);
  EXPECT_DOUBLE_EQ(idle.host_wait_us, 100 + (510.01 - 510));
  EXPECT_EQ(idle.host_wait_gaps, 2u);
  EXPECT_DOUBLE_EQ(idle.other_us, 90 + 70);
}

TEST(Diagnosis, BusBandwidthFactors) {
  EXPECT_DOUBLE_EQ(*busbw_factor("allreduce", 8), 1.75);
  EXPECT_DOUBLE_EQ(*busbw_factor("_reduce_scatter_base", 4), 0.75);
  EXPECT_DOUBLE_EQ(*busbw_factor("all_to_all", 2), 0.5);
  EXPECT_DOUBLE_EQ(*busbw_factor("broadcast", 16), 1.0);
  EXPECT_FALSE(busbw_factor("gather", 4).has_value());
  EXPECT_FALSE(busbw_factor("allreduce", 0).has_value());
  EXPECT_EQ(*dtype_bytes("BFloat16"), 2);
  EXPECT_FALSE(dtype_bytes("float").has_value());
}

}  // namespace
}  // namespace aorta::metrics
