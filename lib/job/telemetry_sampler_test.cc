// The sampler's life through a real transport (this machine as the node): started
// beside the training with the tool doubles on PATH, named in the last will, asked to
// end and gone after the stop, its file collected as telemetry/node-0.log; a node
// without a tool says so once; telemetry.enabled false starts nothing.
#include "job/telemetry_sampler.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "job/collect.h"
#include "job/last_will.h"
#include "job/phase.h"
#include "telemetry/sampler_script.h"
#include "test_paths.h"  // AORTA_SOURCE_DIR
#include "tests/process_state.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

namespace fs = std::filesystem;

// PATH as given while the test runs: the local transport's commands inherit it.
class PathAs {
 public:
  explicit PathAs(const std::string& path) : old_(std::getenv("PATH")) { ::setenv("PATH", path.c_str(), 1); }
  ~PathAs() { ::setenv("PATH", old_.c_str(), 1); }

 private:
  std::string old_;
};

const std::string kSystemPath = "/usr/local/bin:/usr/bin:/bin";

// The node, a run "t2" whose training sleeps, and the sampler's PATH.
struct SampledNode {
  aorta::testing::TempDir dir;
  cluster::LocalTransport local;
  config::Variant v;
  config::Cluster c = config::local_cluster("tester");
  RunState state;
  std::unique_ptr<NodeExec> exec;
  SampledNode() {
    v.aorta_path = (dir.path() / "repo").string();
    v.container.runtime = config::RuntimeKind::kNone;
    v.timeout_seconds = 60;
    fs::create_directories(v.aorta_path);
    state.run_id = "t2";
    state.output_root = dir.path() / "out";
    exec = std::make_unique<NodeExec>(local, v, c);
  }
  SamplerStart start(const std::string& path) {
    PathAs as(path);
    EXPECT_TRUE(start_phase(*exec, state, "benchmark", {"sleep 30"}, Rendezvous{}));
    return start_samplers(*exec, state, "benchmark");
  }
  std::string node_file(const std::string& name) const {
    std::ifstream in(fs::path(node_work_dir(v, "t2", 0)) / name);
    return {std::istreambuf_iterator<char>(in), {}};
  }
};

TEST(TelemetrySampler, StartedBesideTheTrainingStoppedAfterItAndCollected) {
  SampledNode node;
  const std::string host = node.exec->hosts()[0];
  auto said = node.start(std::string(AORTA_SOURCE_DIR) + "/tests/doubles/gpu_tools/nvidia-smi-only:" + kSystemPath);
  EXPECT_EQ(said.notes, std::vector<std::string>{"GPU telemetry every 1 s with nvidia-smi on 1 node(s)"});
  EXPECT_TRUE(said.warnings.empty());
  ASSERT_EQ(node.state.phase_pids[kTelemetryPhase].count(host), 1u);
  const pid_t sampler = static_cast<pid_t>(node.state.phase_pids[kTelemetryPhase][host]);
  EXPECT_TRUE(aorta::testing::process_alive(sampler));
  EXPECT_NE(last_will_command(*node.exec, node.state, 0).find("telemetry.pid"), std::string::npos);
  std::this_thread::sleep_for(std::chrono::seconds(2));

  ASSERT_TRUE(stop_phase(*node.exec, node.state, "benchmark"));
  ASSERT_TRUE(stop_samplers(*node.exec, node.state));
  EXPECT_TRUE(aorta::testing::gone_within(sampler, std::chrono::seconds(2)));
  EXPECT_TRUE(node.state.phase_pids[kTelemetryPhase].empty());
  const std::string log = node.node_file(telemetry::kSampleFile);
  EXPECT_TRUE(log.ends_with(" stopped\n") || log.ends_with(" training ended\n")) << log;
  EXPECT_NE(log.find(" tick\nindex, timestamp"), std::string::npos) << log;

  collect_logs(*node.exec, node.state);
  const fs::path copy = node.state.output_root / "telemetry" / "node-0.log";
  EXPECT_EQ(node.state.artifacts["telemetry_node_0"], copy);
  std::ifstream in(copy);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), log);
  EXPECT_FALSE(fs::exists(node.state.output_root / "telemetry-node-0.log"));
}

TEST(TelemetrySampler, ANodeWithoutAToolSaysSoOnceAndTheRunGoesOn) {
  SampledNode node;
  auto said = node.start(kSystemPath);
  EXPECT_TRUE(said.notes.empty());
  EXPECT_EQ(said.warnings, std::vector<std::string>{telemetry::no_tool_line({node.exec->hosts()[0]})});
  ASSERT_TRUE(stop_phase(*node.exec, node.state, "benchmark"));
  EXPECT_TRUE(stop_samplers(*node.exec, node.state));
}

TEST(TelemetrySampler, OffStartsNothing) {
  SampledNode node;
  node.v.telemetry.enabled = false;
  auto said = node.start(kSystemPath);
  EXPECT_EQ(said.notes, std::vector<std::string>{"GPU telemetry: off (telemetry.enabled false)"});
  EXPECT_EQ(node.state.launched_phases, std::vector<std::string>{"benchmark"});
  EXPECT_TRUE(stop_samplers(*node.exec, node.state));
  EXPECT_TRUE(stop_phase(*node.exec, node.state, "benchmark"));
}

}  // namespace
}  // namespace aorta::job
