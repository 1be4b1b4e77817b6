// Stage bodies driven through FakeTransport (tests/fake_transport.h): each node's
// answer is scripted, so a test can make one node of two fail and check that the
// stage names it, and read back what every node was asked to run. Only the public
// result (failures, skip_reason, subtests, log) and RunState are checked. The
// harness the stage-body tests (lib/stages/*_test.cc) share.
#pragma once

#include <string>
#include <vector>

#include "stages/specs.h"
#include "tests/fake_transport.h"

namespace aorta::stages {

inline constexpr const char* kAny = "*";

// Two docker nodes, an existing checkout (no clone), RCCL build skipped.
struct Harness {
  aorta::testing::FakeTransport fake;
  config::Variant v;
  config::Cluster cluster;
  job::RunState state;
  std::vector<std::string> progress;

  Harness() {
    v.aorta_path = "/scratch/alice/aorta";
    v.container_mount_path = "/workspace/aorta";
    v.container.runtime = config::RuntimeKind::kDocker;
    v.container.runtime_name = "docker";
    v.container.image = "rocm/aorta:1";
    v.container.lifetime = "per_run";
    // The stage tests count the training's commands; the GPU sampler's own start and stop
    // are tested with it (TelemetrySampler.*, StageBodies.BenchmarkSamplesBesideTheTraining).
    v.telemetry.enabled = false;
    v.base_config = "config/overlap.yaml";
    v.build_script = "scripts/build_rccl.sh";
    v.experiment_script = "scripts/launch.sh";
    v.multi_node.train_script = "train.py";
    v.skip_rccl_build = true;
    v.timeout_seconds = 60;
    cluster.username = "alice";
    cluster.nodes = {{"n1", "10.0.0.1", ""}, {"n2", "10.0.0.2", ""}};
    state.run_id = "0123456789abcdef0123456789abcdef";
  }

  StageResult run(const StageSpec& spec) {
    job::NodeExec exec(fake, v, cluster);
    StageContext ctx{exec, state, [this](const std::string& line) { progress.push_back(line); }};
    return spec.body(ctx);
  }
};

inline std::string joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  return all;
}

inline bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

}  // namespace aorta::stages
