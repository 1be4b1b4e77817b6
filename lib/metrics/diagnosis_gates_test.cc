// The diagnosis gates' figures on hand-made diagnoses; expected values worked out by
// hand in the comments. The real and perturbed traces: diagnosis_traces_test.cc.
#include "metrics/diagnosis_gates.h"

#include <gtest/gtest.h>

namespace aorta::metrics {
namespace {

RankMetrics rank_with(std::vector<KernelClassTime> classes, std::vector<CollectiveBandwidth> collectives = {}) {
  RankMetrics m;
  m.diagnosis = RankDiagnosis{1000, std::move(classes), std::move(collectives), {}};
  return m;
}

KernelClassTime kernels(const char* name, uint64_t count, double time_us) { return {name, count, time_us, 0}; }

CollectiveBandwidth collective(const char* name, uint64_t bytes, std::optional<double> busbw) {
  CollectiveBandwidth b;
  b.collective = name;
  b.dtype = "Float";
  b.group_size = 8;
  b.bytes = bytes;
  b.count = 1;
  b.busbw_gbps = busbw;
  return b;
}

TEST(DiagnosisGates, SlowdownIsTheSlowestGemmOverTheMedian) {
  // Mean GEMM kernel 10, 11 and 12 us: median 11, slowest 12.
  std::vector<RankMetrics> ranks{rank_with({kernels("gemm", 10, 100)}), rank_with({kernels("gemm", 10, 110)}),
                                 rank_with({kernels("gemm", 20, 240), kernels("other_compute", 1, 1000)})};
  EXPECT_DOUBLE_EQ(*max_rank_compute_slowdown_ratio(ranks), 12.0 / 11.0);
  ranks.push_back(RankMetrics{});  // a rank without a diagnosis is no peer
  EXPECT_DOUBLE_EQ(*max_rank_compute_slowdown_ratio(ranks), 12.0 / 11.0);
}

TEST(DiagnosisGates, SlowdownFallsBackToAllComputeWhenTooFewRanksHaveGemm) {
  // Two ranks with GEMM: all compute instead. Means (20 + 20) / 4 = 10, 44 / 4 = 11,
  // (15 + 15) / 2 = 15: median 11, slowest 15. Memsets and collectives are no compute.
  std::vector<RankMetrics> ranks{
      rank_with({kernels("gemm", 2, 20), kernels("other_compute", 2, 20), kernels("memset", 1, 500)}),
      rank_with({kernels("attention", 2, 22), kernels("other_compute", 2, 22)}),
      rank_with({kernels("gemm", 1, 15), kernels("other_compute", 1, 15), kernels("collective:allreduce", 1, 900)})};
  EXPECT_DOUBLE_EQ(*max_rank_compute_slowdown_ratio(ranks), 15.0 / 11.0);
}

TEST(DiagnosisGates, SlowdownNeedsThreeRanks) {
  std::vector<RankMetrics> ranks{rank_with({kernels("gemm", 10, 100)}), rank_with({kernels("gemm", 10, 200)})};
  EXPECT_FALSE(max_rank_compute_slowdown_ratio(ranks).has_value());
  ranks.push_back(rank_with({kernels("memcpy", 10, 100)}));
  EXPECT_FALSE(max_rank_compute_slowdown_ratio(ranks).has_value());
}

TEST(DiagnosisGates, BusbwIsTheLowestRankAtTheLargestSize) {
  std::vector<RankMetrics> ranks{
      rank_with({}, {collective("allreduce", 1000, 5.0), collective("allreduce", 4000, 50.0)}),
      rank_with({}, {collective("allreduce", 4000, 40.0), collective("_allgather_base", 4000, 3.0)}),
      rank_with({}, {collective("all_reduce_coalesced", 4000, 45.0), collective("barrier", 8, std::nullopt)})};
  // 5 GB/s is at 1000 B, not the largest size: the lowest at 4000 B is 40.
  EXPECT_DOUBLE_EQ(*min_busbw_gbps(ranks, "allreduce"), 40.0);
  EXPECT_DOUBLE_EQ(*min_busbw_gbps(ranks, "allgather"), 3.0);
  EXPECT_FALSE(min_busbw_gbps(ranks, "reduce_scatter").has_value());
  EXPECT_FALSE(min_busbw_gbps({RankMetrics{}}, "allreduce").has_value());
}

}  // namespace
}  // namespace aorta::metrics
