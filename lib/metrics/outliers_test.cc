// Outliers by median and MAD on hand-made ranks; the expected medians, ratios and
// cut-offs are worked out in the comments.
#include "metrics/outliers.h"

#include <gtest/gtest.h>

namespace aorta::metrics {
namespace {

// A rank whose 10 GEMMs take `gemm_us` each and whose allreduce of 4 MiB reaches `busbw`;
// its idle time is all host wait.
RankMetrics rank(int r, double gemm_us, double busbw, double idle_us = 1000, std::optional<std::string> node = {}) {
  RankMetrics m;
  m.rank = r;
  m.node = std::move(node);
  m.source = "rank" + std::to_string(r) + ".json";
  m.idle_time_us = idle_us;
  RankDiagnosis d;
  d.idle.host_wait_us = idle_us;
  d.classes.push_back({"gemm", 10, 10 * gemm_us, 0.5});
  d.collectives.push_back({"allreduce", "Float", 8, 4194304, 20, 1000, busbw, busbw});
  m.diagnosis = d;
  return m;
}

TEST(Outliers, MedianOfOddAndEvenCounts) {
  EXPECT_EQ(median_of({3, 1, 2}), 2);
  EXPECT_EQ(median_of({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median_of({}), 0);
}

TEST(Outliers, SlowGemmRankIsNamedWithItsReason) {
  // GEMM: 100, 101, 99, 100, 115: median 100, MAD 1, cut 3.5 * 1.4826 = 5.19 us; rank 4 is
  // 15 us off and 15% slower. Bandwidth all 40: no finding.
  const std::vector<RankMetrics> ranks{rank(0, 100, 40), rank(1, 101, 40), rank(2, 99, 40), rank(3, 100, 40),
                                       rank(4, 115, 40)};
  const auto found = find_outliers(ranks);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].rank, 4);
  EXPECT_EQ(found[0].measure, "gemm mean kernel time");
  EXPECT_DOUBLE_EQ(found[0].value, 115);
  EXPECT_DOUBLE_EQ(found[0].median, 100);
  EXPECT_DOUBLE_EQ(found[0].ratio, 1.15);
  EXPECT_EQ(found[0].ranks, 5u);
  EXPECT_EQ(found[0].reason,
            "gemm mean kernel time 15.0% slower than the median of 5 ranks for the same kernels; its bus bandwidth is "
            "normal: suspect this GPU (clocks, thermals), not the fabric");
}

TEST(Outliers, LowBandwidthRankWorstFirst) {
  // Bus bandwidth 40, 41, 39, 40, 28: median 40, MAD 1; rank 4 is 30% low. Idle of rank 1
  // 1400 against 1000: 40% above (MAD 0), the worse of the two. GEMMs equal.
  const std::vector<RankMetrics> ranks{rank(0, 100, 40), rank(1, 100, 41, 1400), rank(2, 100, 39), rank(3, 100, 40),
                                       rank(4, 100, 28)};
  // Rank 1's idle is all host wait, so that is found too, with the same ratio: the
  // measures' names break the tie (host wait after idle, as gathered).
  const auto found = find_outliers(ranks);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].rank, 1);
  EXPECT_EQ(found[0].measure, "GPU host-wait time");
  EXPECT_EQ(found[0].reason,
            "GPU host-wait time 40.0% above the median of 5 ranks: its GPU waits for its host to launch kernels (CPU "
            "contention or frequency, data loading, Python overhead): suspect the host, not the GPU or the fabric");
  EXPECT_EQ(found[1].rank, 1);
  EXPECT_EQ(found[1].measure, "GPU idle time");
  EXPECT_EQ(found[2].rank, 4);
  EXPECT_EQ(found[2].measure, "allreduce 4194304 B Float x8 bus bandwidth");
  EXPECT_DOUBLE_EQ(found[2].ratio, 0.7);
  EXPECT_EQ(found[2].reason.substr(found[2].reason.find(';')),
            "; its compute is normal: suspect its link, NIC or switch port, not the GPU");
}

// Six ranks on three nodes; ranks 4 and 5 (node c) have slow GEMMs: 100, 101, 99, 101,
// 115, 120 have median 101 and MAD 1.5 (cut 7.78 us), so 115 and 120 are out. Rank 1
// (node a) has a low bandwidth. Node c gets one finding before its ranks', node a none
// (one rank).
TEST(Outliers, TwoOutlierRanksOfOneNodeNameTheNode) {
  const std::vector<RankMetrics> ranks{rank(0, 100, 40, 1000, "a"), rank(1, 101, 28, 1000, "a"),
                                       rank(2, 99, 40, 1000, "b"),  rank(3, 101, 40, 1000, "b"),
                                       rank(4, 115, 40, 1000, "c"), rank(5, 120, 40, 1000, "c")};
  const auto found = find_outliers(ranks);
  ASSERT_EQ(found.size(), 4u);
  // Worst first: rank 1's bandwidth (0.7), then rank 5 (120 / 101) behind node c's line.
  EXPECT_EQ(found[0].rank, 1);
  EXPECT_FALSE(found[1].rank.has_value());
  EXPECT_EQ(found[1].node, "c");
  EXPECT_TRUE(found[1].of_node);
  EXPECT_EQ(found[1].measure, "outlier ranks");
  EXPECT_EQ(found[1].value, 2);
  EXPECT_EQ(found[1].reason, "2 of its ranks have slow compute or bandwidth (ranks 4, 5): suspect what they share (the "
                             "node's power, cooling, PCIe switch or NIC), not one GPU");
  EXPECT_EQ(found[2].rank, 5);
  EXPECT_EQ(found[2].node, "c");
  EXPECT_DOUBLE_EQ(found[2].ratio, 120.0 / 101);
  EXPECT_EQ(found[3].rank, 4);
  // Without node names the same ranks make no node finding.
  std::vector<RankMetrics> anonymous = ranks;
  for (auto& r : anonymous) r.node.reset();
  EXPECT_EQ(find_outliers(anonymous).size(), 3u);
  // One node for all: no peers to differ from, no node finding.
  std::vector<RankMetrics> one_node = ranks;
  for (auto& r : one_node) r.node = "a";
  EXPECT_EQ(find_outliers(one_node).size(), 3u);
}

// Host waits are no part's fault: two ranks of node c waiting on their hosts (idle
// 1400 against 1000) add no node finding, only their own (host wait and idle each).
TEST(Outliers, HostWaitsMakeNoNodeFinding) {
  const std::vector<RankMetrics> ranks{rank(0, 100, 40, 1000, "a"), rank(1, 100, 40, 1000, "a"),
                                       rank(2, 100, 40, 1000, "b"), rank(3, 100, 40, 1000, "b"),
                                       rank(4, 100, 40, 1400, "c"), rank(5, 100, 40, 1400, "c")};
  const auto found = find_outliers(ranks);
  ASSERT_EQ(found.size(), 4u);
  for (const Finding& f : found) EXPECT_FALSE(f.of_node) << f.reason;
}

TEST(Outliers, NoOutlierWithinNoiseOrWithTooFewRanks) {
  // 4% off with MAD 0: under the 5% compute share.
  EXPECT_TRUE(find_outliers({rank(0, 100, 40), rank(1, 100, 40), rank(2, 104, 40)}).empty());
  // Two ranks: the median lies between them, nobody is out of line.
  EXPECT_TRUE(find_outliers({rank(0, 100, 40), rank(1, 150, 20)}).empty());
  // Spread evenly: 80..120 in steps of 10, MAD 10, cut 51.9: none past it.
  EXPECT_TRUE(find_outliers({rank(0, 80, 40), rank(1, 90, 40), rank(2, 100, 40), rank(3, 110, 40), rank(4, 120, 40)})
                  .empty());
}

}  // namespace
}  // namespace aorta::metrics
