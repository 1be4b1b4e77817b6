// The bodies of the lifecycle stages (reference §1.5). Each returns its outcome as a
// value; only fixtures/ turns outcomes into gtest results, and the gating between
// stages lives in fixtures/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "job/node_exec.h"
#include "job/outcome.h"
#include "job/phase.h"
#include "job/run_state.h"

namespace aorta::job {

struct StageContext {
  NodeExec& exec;
  RunState& state;
  ProgressFn log;
  bool prior_failure = false;  // an earlier stage failed (the report says so)
  ProgressFn training_output = {};  // node 0's training output, line by line, while the benchmark runs
};

// A stage body: runs on the cluster through ctx and returns what happened.
using StageBody = StageOutcome (*)(StageContext& ctx);

StageOutcome launch_container(StageContext& ctx);
StageOutcome clone_aorta(StageContext& ctx);
StageOutcome setup_rdma(StageContext& ctx);
StageOutcome build_rccl(StageContext& ctx);
StageOutcome run_benchmark(StageContext& ctx);
StageOutcome collect_traces_stage(StageContext& ctx);
StageOutcome analyze(StageContext& ctx);
StageOutcome parse_results(StageContext& ctx);
StageOutcome validate_thresholds(StageContext& ctx);
StageOutcome teardown(StageContext& ctx);

// The hosts whose traces collection fetches: every node when torchrun collects
// from all of them, otherwise the head node only. One trace-collection sub-test each.
bool collects_every_node(const config::Variant& v, size_t nodes);
std::vector<std::string> collecting_hosts(const config::Variant& v, const std::vector<std::string>& hosts);

// A threshold check as a sub-test (unit, gate and outcome typed).
SubTest threshold_subtest(const metrics::ThresholdCheck& check);

// The entry points a node must have for this config (reference §1.5.1).
std::vector<std::string> required_entry_points(const config::Variant& v, size_t nodes);

// Skip reasons, exactly as the guide words them.
inline constexpr const char* kSkipPriorFailure = "a prior lifecycle stage failed";
inline constexpr const char* kSkipRcclBuild = "skip_rccl_build=true";
inline constexpr const char* kSkipAnalysis = "Optional TraceLens/GEMM analysis is disabled";
inline constexpr const char* kSkipThresholds =
    "enforce_thresholds=false; metrics are recorded without threshold assertions";
inline constexpr const char* kSkipNoResult = "No parsed benchmark result available";

}  // namespace aorta::job
