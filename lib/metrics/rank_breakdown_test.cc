// The per-rank diagnosis figures the reports draw and compare reads: on hand-made
// diagnoses (expected values worked out in the comments), and on the shipped real H200
// traces against tools/independent_diagnosis.py's output for them (its numbers quoted).
#include "metrics/rank_breakdown.h"

#include <gtest/gtest.h>

#include "metrics/diagnosis_gates.h"
#include "metrics/trace_set.h"
#include "tests/diagnosis_fixture.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::metrics {
namespace {

using aorta::testing::collective;

RankMetrics rank_with(std::vector<KernelClassTime> classes, std::vector<CollectiveBandwidth> collectives = {}) {
  return aorta::testing::diagnosed_rank(std::nullopt, std::move(classes), std::move(collectives));
}

constexpr uint64_t kMiB = 1 << 20;

TEST(RankBreakdown, BusbwPerRankIsEachRanksLowestAtTheTypesLargestSize) {
  // Largest all-reduce with a bus bandwidth: 4 MiB (the 8 MiB one has none). Rank 0's
  // lowest there is 30 (BFloat16 under Float's 40; its 1 MiB 10 is another size), rank
  // 1's 50 (spelt all_reduce); rank 2 sent only 1 MiB and rank 3 has no diagnosis:
  // neither is drawn. Median of 30 and 50: 40; lowest 30.
  std::vector<RankMetrics> ranks{
      rank_with({}, {collective("allreduce", kMiB, 10), collective("allreduce", 4 * kMiB, 40),
                     collective("allreduce", 4 * kMiB, 30, "BFloat16"),
                     collective("allreduce", 8 * kMiB, std::nullopt)}),
      rank_with({}, {collective("all_reduce", 4 * kMiB, 50), collective("_allgather_base", kMiB, 7)}),
      rank_with({}, {collective("allreduce", kMiB, 5)}), RankMetrics{}};
  const auto b = busbw_per_rank(ranks, "allreduce");
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->bytes, 4 * kMiB);
  EXPECT_EQ(b->gbps, (std::vector<std::pair<size_t, double>>{{0, 30}, {1, 50}}));
  EXPECT_DOUBLE_EQ(b->median_gbps, 40);
  EXPECT_DOUBLE_EQ(b->lowest_gbps, 30);
  EXPECT_EQ(b->lowest_gbps, *min_busbw_gbps(ranks, "allreduce"));  // the gate reads the same figure
  // All-gather: only rank 1, 7 at 1 MiB. Reduce-scatter: none.
  EXPECT_EQ(busbw_per_rank(ranks, "allgather")->gbps, (std::vector<std::pair<size_t, double>>{{1, 7}}));
  EXPECT_FALSE(busbw_per_rank(ranks, "reduce_scatter").has_value());
}

TEST(RankBreakdown, ClassSharesAreMediansCountingAMissingClassAsZero) {
  // GEMM 0.2 and 0.4: median 0.3. Other compute on rank 0 only: 0.1 and 0, median 0.05.
  // All-reduce at 2 MiB on rank 1 only: lowest 12.
  std::vector<RankMetrics> ranks{rank_with({{"gemm", 1, 200, 0.2}, {"other_compute", 1, 100, 0.1}}),
                                 rank_with({{"gemm", 1, 400, 0.4}}, {collective("allreduce", 2 * kMiB, 12)}),
                                 RankMetrics{}};
  const auto f = diagnosis_figures(ranks);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->class_shares.size(), 2u);
  EXPECT_DOUBLE_EQ(f->class_shares.at("gemm"), 0.3);
  EXPECT_DOUBLE_EQ(f->class_shares.at("other_compute"), 0.05);
  ASSERT_EQ(f->busbw.size(), 1u);
  EXPECT_EQ(f->busbw.at("allreduce").bytes, 2 * kMiB);
  EXPECT_DOUBLE_EQ(f->busbw.at("allreduce").lowest_gbps, 12);
  EXPECT_FALSE(diagnosis_figures({RankMetrics{}}).has_value());
}

// tools/independent_diagnosis.py on tests/data/h200-aorta-overlap_rank{0,1}: the
// busbw of each type's largest size (allreduce 4194304 B, _allgather_base and
// _reduce_scatter_base 247840776 B) and the GEMM shares; medians the mean of the two.
TEST(RankBreakdown, RealTracesEqualTheIndependentScript) {
  std::vector<RankMetrics> ranks;
  for (int rank : {0, 1}) {
    std::vector<std::string> warnings;
    auto m = analyze_trace_file(std::string(AORTA_TEST_DATA_DIR) + "/h200-aorta-overlap_rank" + std::to_string(rank) +
                                    ".pt.trace.json.gz",
                                AnalyzeOptions{}, warnings);
    ASSERT_TRUE(m.ok());
    ranks.push_back(*m);
  }
  const struct {
    const char* type;
    uint64_t bytes;
    double rank0, rank1, median;
  } expected[] = {{"allreduce", 4194304, 2.469695882892014, 5.35192081339847, 3.910808348145242},
                  {"allgather", 247840776, 61.13666255754847, 34.356248462531575, 47.74645551004002},
                  {"reduce_scatter", 247840776, 49.767336327412735, 214.27114214866404, 132.01923923803838}};
  for (const auto& e : expected) {
    const auto b = busbw_per_rank(ranks, e.type);
    ASSERT_TRUE(b.has_value()) << e.type;
    EXPECT_EQ(b->bytes, e.bytes) << e.type;
    ASSERT_EQ(b->gbps.size(), 2u) << e.type;
    EXPECT_DOUBLE_EQ(b->gbps[0].second, e.rank0) << e.type;
    EXPECT_DOUBLE_EQ(b->gbps[1].second, e.rank1) << e.type;
    EXPECT_DOUBLE_EQ(b->median_gbps, e.median) << e.type;
    EXPECT_EQ(b->lowest_gbps, *min_busbw_gbps(ranks, e.type)) << e.type;
  }
  const auto f = diagnosis_figures(ranks);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->class_shares.size(), 8u);  // gemm, attention, other_compute, 3 collectives, memcpy, memset
  EXPECT_DOUBLE_EQ(f->class_shares.at("gemm"), 0.035123043321130296);
  EXPECT_DOUBLE_EQ(f->class_shares.at("collective:allreduce"), 0.05432706299460714);
}

}  // namespace
}  // namespace aorta::metrics
