// Stage bodies that must fail as values, never crash (issue 14).
#include "stages/specs.h"

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "tests/rank_fixture.h"
#include "tests/temp_dir.h"

namespace aorta::stages {
namespace {

// master_launch_mode "script" on two nodes once indexed past its one command.
TEST(Stages, ScriptModeOnTwoNodesIsAFailedStage) {
  aorta::testing::TempDir dir;
  cluster::LocalTransport local;
  config::Variant v;
  v.aorta_path = (dir.path() / "repo").string();
  v.container.runtime = config::RuntimeKind::kNone;
  v.multi_node.master_launch_mode = "script";
  config::Cluster c = config::local_cluster("tester");
  c.nodes.push_back({"second", "", ""});
  job::NodeExec exec(local, v, c);
  job::RunState state;
  state.run_id = "abc";
  stages::StageContext ctx{exec, state, [](const std::string&) {}};
  StageResult out = stages::kRunBenchmark.body(ctx);
  ASSERT_EQ(out.failures.size(), 1u);
  EXPECT_EQ(out.failures[0],
            "master_launch_mode \"script\" starts the workload on one node, but the cluster has 2: use \"torchrun\" "
            "or \"auto\"");
  EXPECT_FALSE(state.benchmark_started);
}

// Thresholds typed end to end: gate, unit and outcome; with enforce_thresholds false
// each is recorded (value and limit kept) and skipped, never failed.
TEST(Stages, ThresholdsAreTypedSubTestsAndRecordedWhenNotEnforced) {
  cluster::LocalTransport local;
  config::Variant v;
  v.thresholds = {{"max_avg_iteration_ms", 5.0}, {"min_compute_ratio", 0.5}, {"min_overlap_ratio", std::nullopt}};
  config::Cluster c = config::local_cluster("tester");
  job::NodeExec exec(local, v, c);
  job::RunState state;
  // 12 ms per iteration on one rank, compute 9/12 = 0.75.
  state.result = metrics::aggregate({aorta::testing::rank_metrics(0, 12000, 9000, 3000)}).value();
  stages::StageContext ctx{exec, state, [](const std::string&) {}};
  StageResult out = stages::kValidateThresholds.body(ctx);
  ASSERT_EQ(out.subtests.size(), 2u);  // the null threshold is not checked
  const job::SubTest& time = out.subtests[0];
  EXPECT_EQ(time.outcome, job::Outcome::kFailed);
  EXPECT_EQ(time.gate, metrics::ThresholdKind::kMax);
  EXPECT_EQ(time.unit, metrics::MetricUnit::kMs);
  EXPECT_DOUBLE_EQ(*time.actual, 12.0);
  EXPECT_EQ(time.measured(), "actual 12 ms, max 5 ms");
  EXPECT_EQ(out.subtests[1].outcome, job::Outcome::kPassed);
  EXPECT_EQ(out.subtests[1].measured(), "actual 75%, min 50%");  // a fraction in %, as people read it
  EXPECT_EQ(out.verdict(), job::Outcome::kFailed);
  ASSERT_EQ(out.failures.size(), 1u);

  v.enforce_thresholds = false;
  job::NodeExec record_only(local, v, c);
  stages::StageContext ctx2{record_only, state, [](const std::string&) {}};
  out = stages::kValidateThresholds.body(ctx2);
  EXPECT_EQ(out.verdict(), job::Outcome::kSkipped);
  EXPECT_EQ(out.skip_reason, "enforce_thresholds=false; metrics are recorded without threshold assertions");
  ASSERT_EQ(out.subtests.size(), 2u);
  EXPECT_EQ(out.subtests[0].outcome, job::Outcome::kSkipped);
  EXPECT_DOUBLE_EQ(*out.subtests[0].actual, 12.0);
  EXPECT_NE(out.subtests[0].message.find("would fail"), std::string::npos) << out.subtests[0].message;
  EXPECT_EQ(out.subtests[0].summary().rfind("[threshold] (metric=max_avg_iteration_ms): recorded (actual 12 ms, max 5 ms)", 0), 0u)
      << out.subtests[0].summary();
}

// CVS's failed-stage line, the list as Python's str.format prints it (expected
// strings printed by python3 from the same messages).
TEST(Stages, FollowingFailuresLineIsCvssWithPythonsListRepr) {
  EXPECT_EQ(stages::following_failures_line({}), "Following FAILURES seen - []");
  EXPECT_EQ(stages::following_failures_line({"Aorta command failed on nodes: {n2: 1}", "node1's trace", "a\"b'c",
                                              "two\nlines\tand \\ and \x01"}),
            R"(Following FAILURES seen - ['Aorta command failed on nodes: {n2: 1}', "node1's trace", 'a"b\'c', )"
            R"('two\nlines\tand \\ and \x01'])");
}

}  // namespace
}  // namespace aorta::stages
