// The diagnosis gates' figures on hand-made diagnoses; expected values worked out by
// hand in the comments. The real and perturbed traces: diagnosis_traces_test.cc.
#include "metrics/diagnosis_gates.h"

#include <gtest/gtest.h>

#include "metrics/run_metrics.h"

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

// Each gate names the rank its figure is of, as the diagnosis names a rank: the slowest
// rank's compute (the first of equals), the lowest rank's bus bandwidth at the largest size.
TEST(DiagnosisGates, SubjectIsTheRankTheFigureIsOf) {
  std::vector<RankMetrics> ranks{rank_with({kernels("gemm", 10, 100)}, {collective("allreduce", 4000, 50.0)}),
                                 rank_with({kernels("gemm", 10, 130)}, {collective("allreduce", 4000, 30.0)}),
                                 rank_with({kernels("gemm", 10, 130)}, {collective("allreduce", 4000, 45.0)})};
  for (int r = 0; r < 3; ++r) {
    ranks[r].rank = r + 4;
    ranks[r].node = "node" + std::to_string(r);
    ranks[r].gpu = r;
  }
  ranks[1].gpu.reset();  // its trace named no one GPU
  const auto slowest = slowest_compute_rank(ranks);
  ASSERT_TRUE(slowest.has_value());
  EXPECT_EQ(slowest->text(), "node1 rank 5");
  const auto lowest = lowest_busbw_rank(ranks, "allreduce");
  ASSERT_TRUE(lowest.has_value());
  EXPECT_EQ(lowest->text(), "node1 rank 5");
  ranks[1].diagnosis->collectives[0].busbw_gbps = 60.0;
  EXPECT_EQ(lowest_busbw_rank(ranks, "allreduce")->text(), "node2 rank 6 (GPU 2)");
  EXPECT_FALSE(lowest_busbw_rank(ranks, "allgather").has_value());
  EXPECT_FALSE(slowest_compute_rank({ranks[0], ranks[1]}).has_value());  // two ranks: no median
}

// A per-rank gate's failure names its subject after the gate's text; the original's
// gates keep theirs byte for byte (CVS's scrapers key on them), subject or not.
TEST(DiagnosisGates, FailingPerRankGateNamesItsSubject) {
  RunMetrics run;
  for (double us : {100.0, 110.0, 150.0}) {
    run.per_rank.push_back(rank_with({kernels("gemm", 10, us)}, {collective("allreduce", 4000, us / 10)}));
    run.per_rank.back().rank = static_cast<int>(run.per_rank.size()) - 1;
    run.per_rank.back().node = "n" + std::to_string(run.per_rank.size() - 1);
    run.per_rank.back().gpu = 7;
  }
  run.avg_compute_ratio = 0.5;
  const auto checks = check_thresholds(run, {{"max_rank_compute_slowdown_ratio", 1.2},
                                             {"min_allreduce_busbw_gbps", 12.0},
                                             {"min_compute_ratio", 0.9}});
  ASSERT_EQ(checks.size(), 3u);
  ASSERT_TRUE(checks[0].subject.has_value());
  EXPECT_EQ(checks[0].subject->rank, 2);
  EXPECT_EQ(checks[0].message, "Slowest rank's compute kernels take 1.3636x the median of the ranks, exceeds "
                               "threshold 1.2: n2 rank 2 (GPU 7)");
  EXPECT_EQ(checks[1].message,
            "Lowest rank all-reduce bus bandwidth 10.00 GB/s below threshold 12 GB/s: n0 rank 0 (GPU 7)");
  EXPECT_FALSE(checks[2].subject.has_value());
  EXPECT_EQ(checks[2].message, "Average compute ratio 50.00% below threshold 90.00%");
}

}  // namespace
}  // namespace aorta::metrics
