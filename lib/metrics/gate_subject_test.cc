// A failing per-rank gate names its rank, node and GPU, on real H200 traces: four
// copies of rank 1's trace, three spread as a healthy cluster's (1.00, 1.01, 0.99) and
// rank 3's GEMMs made 1.3x longer by tools/perturb_trace.py, each named as
// tensorboard_trace_handler names a file on node<rank> (the node the reports name).
#include <cstdlib>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "metrics/run_metrics.h"
#include "metrics/trace_set.h"
#include "tests/temp_dir.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::metrics {
namespace {

namespace fs = std::filesystem;

RunMetrics four_ranks_one_slow(const fs::path& dir) {
  const std::vector<std::pair<const char*, double>> ranks{{"all", 1.00}, {"all", 1.01}, {"all", 0.99}, {"gemm", 1.3}};
  std::string script = "set -e\n";
  for (size_t r = 0; r < ranks.size(); ++r)
    script += fmt::format("/usr/bin/python3 {}/tools/perturb_trace.py {}/h200-aorta-overlap_rank1.pt.trace.json.gz "
                          "{}/node{}_{}.1700000000000.pt.trace.json --kind {} --factor {} --rank {} --world-size 4 &\n",
                          AORTA_SOURCE_DIR, AORTA_TEST_DATA_DIR, dir.string(), r, 100 + r, ranks[r].first,
                          ranks[r].second, r);
  EXPECT_EQ(std::system((script + "wait\n").c_str()), 0);
  TraceSet traces = analyze_traces(dir, AnalyzeOptions{});
  EXPECT_EQ(traces.status, ParseStatus::kSuccess);
  auto run = aggregate(traces.ranks);
  EXPECT_TRUE(run.ok());
  return run.ok() ? *run : RunMetrics{};
}

TEST(GateSubject, SlowRankIsNamedInTheFailingGateAndOriginalGatesKeepTheirText) {
  aorta::testing::TempDir dir;
  const RunMetrics run = four_ranks_one_slow(dir.path());
  ASSERT_EQ(run.per_rank.size(), 4u);
  const RankMetrics& slow = run.per_rank[3];
  ASSERT_TRUE(slow.gpu.has_value());  // one rank per node: its GPU index stands
  const auto checks = check_thresholds(run, {{"max_rank_compute_slowdown_ratio", 1.2}, {"min_compute_ratio", 0.99}});
  ASSERT_EQ(checks.size(), 2u);
  // GEMM means 1.00, 1.01, 0.99, 1.3 of rank 1's: median 1.005, slowest 1.3.
  ASSERT_TRUE(checks[0].actual.has_value());
  EXPECT_NEAR(*checks[0].actual, 1.3 / 1.005, 1e-5);
  EXPECT_FALSE(checks[0].passed);
  ASSERT_TRUE(checks[0].subject.has_value());
  EXPECT_EQ(checks[0].subject->rank, 3);
  EXPECT_EQ(checks[0].subject->node, "node3");
  EXPECT_EQ(checks[0].subject->gpu, slow.gpu);
  EXPECT_EQ(checks[0].message, fmt::format("Slowest rank's compute kernels take {:.4f}x the median of the ranks, "
                                           "exceeds threshold 1.2: node3 rank 3 (GPU {})",
                                           *checks[0].actual, *slow.gpu));
  // CVS's own gate: its text byte for byte, no subject (a run-wide average).
  EXPECT_FALSE(checks[1].passed);
  EXPECT_FALSE(checks[1].subject.has_value());
  EXPECT_EQ(checks[1].message, fmt::format("Average compute ratio {:.2f}% below threshold 99.00%",
                                           run.avg_compute_ratio * 100));
}

}  // namespace
}  // namespace aorta::metrics
