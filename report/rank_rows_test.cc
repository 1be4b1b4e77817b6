// The per-rank tables at 512 ranks (issue 46): past kListedRanks a summary, the outliers
// and the slowest, and how many were left out; up to it every rank, as before.
#include "report/rank_rows.h"

#include <gtest/gtest.h>

#include "tests/rank_fixture.h"

namespace aorta::report {
namespace {

using aorta::testing::rank_metrics;

// Ranks 0..n-1, rank r taking 1000 + r us (the last the slowest), rank 3 an outlier.
metrics::RunMetrics ranks(int n) {
  std::vector<metrics::RankMetrics> per_rank;
  for (int r = 0; r < n; ++r) {
    per_rank.push_back(rank_metrics(r, 1000 + r, 500, 100 + r));
    per_rank.back().source = "rank" + std::to_string(r) + ".json";
  }
  auto run = metrics::aggregate(per_rank).value();
  metrics::Finding f;
  f.rank = 3;
  f.source = "rank3.json";
  run.outliers = {f};
  return run;
}

std::vector<int> listed(const RankRows& rows) {
  std::vector<int> out;
  for (const auto* r : rows.listed) out.push_back(*r->rank);
  return out;
}

TEST(RankRows, UpToEightRanksEveryRankIsListed) {
  const auto run = ranks(8);
  const RankRows rows = rank_rows(run);
  EXPECT_EQ(listed(rows), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(rows.left_out, 0u);
}

TEST(RankRows, PastEightTheOutliersThenTheSlowestInRankOrder) {
  const auto run = ranks(512);
  const RankRows rows = rank_rows(run);
  EXPECT_EQ(listed(rows), (std::vector<int>{3, 505, 506, 507, 508, 509, 510, 511}));
  EXPECT_EQ(rows.left_out, 504u);
  EXPECT_EQ(left_out_line(rows, "the JSON"),
            "8 of 512 ranks listed (the outliers, then the slowest); 504 left out; every rank: the JSON");
  EXPECT_EQ(rank_rows(run, true).listed.size(), 512u);
  EXPECT_EQ(rank_rows(run, true).left_out, 0u);
}

// Each column's own statistic; exposed comm over the ranks that have it only.
TEST(RankRows, SummaryRowsAreEachColumnsMinMedianAndMax) {
  auto run = ranks(9);
  run.per_rank[4].exposed_comm_ratio = 0.25;
  const auto rows = summary_rows(run.per_rank);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].name, "min");
  EXPECT_EQ(rows[1].name, "median");
  EXPECT_EQ(rows[2].name, "max");
  EXPECT_DOUBLE_EQ(rows[0].row.total_time_us, 1000);
  EXPECT_DOUBLE_EQ(rows[1].row.total_time_us, 1004);
  EXPECT_DOUBLE_EQ(rows[2].row.total_time_us, 1008);
  EXPECT_DOUBLE_EQ(rows[2].row.comm_time_us, 108);
  EXPECT_DOUBLE_EQ(rows[0].row.compute_ratio, 500.0 / 1008);
  EXPECT_EQ(rows[1].row.exposed_comm_ratio, 0.25);
  EXPECT_FALSE(summary_rows({}).front().row.exposed_comm_ratio.has_value());
}

}  // namespace
}  // namespace aorta::report
