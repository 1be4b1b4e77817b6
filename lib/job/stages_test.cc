// Stage bodies that must fail as values, never crash (issue 14).
#include "job/stages.h"

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "tests/temp_dir.h"

namespace aorta::job {
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
  NodeExec exec(local, v, c);
  RunState state;
  state.run_id = "abc";
  StageContext ctx{exec, state, [](const std::string&) {}};
  StageOutcome out = run_benchmark(ctx);
  ASSERT_EQ(out.failures.size(), 1u);
  EXPECT_EQ(out.failures[0],
            "master_launch_mode \"script\" starts the workload on one node, but the cluster has 2: use \"torchrun\" "
            "or \"auto\"");
  EXPECT_FALSE(state.benchmark_started);
}

}  // namespace
}  // namespace aorta::job
