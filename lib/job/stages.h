// The bodies of the lifecycle stages (reference §1.5). Each returns its outcome as a
// value; only suites/ turns outcomes into gtest results, and the gating between
// stages lives in fixtures/.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "job/node_exec.h"
#include "job/phase.h"
#include "job/run_state.h"

namespace aorta::job {

// A sub-test of a stage: one threshold, or one host's trace collection.
struct SubTest {
  std::string kind;   // threshold | trace collection
  std::string key;    // metric | host | artifact
  std::string value;  // the metric key, host name or artifact name
  bool passed = true;
  std::string message;             // failure text
  std::optional<double> actual;    // thresholds: the measured value
  std::optional<double> limit;     // thresholds: the gate
  std::string gate;                // thresholds: max | min
  std::string label() const { return "[" + kind + "] (" + key + "=" + value + ")"; }
};

struct StageOutcome {
  std::vector<std::string> failures;  // any failure fails the stage
  std::string skip_reason;            // set: skipped by configuration
  std::vector<SubTest> subtests;
  std::vector<std::string> notes;     // shown in the stage's log
  bool failed() const { return !failures.empty(); }
  bool skipped() const { return !skip_reason.empty(); }
};

struct StageContext {
  NodeExec& exec;
  RunState& state;
  ProgressFn log;
};

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
