// test_collect_traces: the profiler traces of every collecting node, and every
// node's phase logs; one sub-test per collecting node, one for the artifact.
#include <set>

#include "common/interrupt.h"
#include "job/collect.h"
#include "job/launch.h"
#include "stages/stage.h"

namespace aorta::stages {
namespace {

// Every node when torchrun collects from all of them, otherwise the head node only.
bool collects_every_node(const config::Variant& v, size_t nodes) {
  return job::launch_mode(v, nodes) == job::LaunchMode::kTorchrun && v.multi_node.collect_traces;
}

std::vector<std::string> collecting_hosts(const config::Variant& v, const std::vector<std::string>& hosts) {
  if (collects_every_node(v, hosts.size()) || hosts.empty()) return hosts;
  return {hosts.front()};
}

StageResult collect_traces(StageContext& ctx) {
  StageResult out;
  const auto& v = ctx.exec.variant();
  out.log = job::collect_traces(ctx.exec, ctx.state, collects_every_node(v, ctx.exec.hosts().size()), ctx.log);
  for (const auto& w : job::collect_logs(ctx.exec, ctx.state)) out.log.push_back(w);
  std::set<std::string> nothing_fresh;  // the nodes that listed no trace of this run
  for (const auto& host : collecting_hosts(v, ctx.exec.hosts())) {
    job::SubTest t{.kind = job::SubTestKind::kTraceCollection, .key = "host", .value = host};
    for (const auto& e : ctx.state.collection_errors)
      if (e.host == host) {
        t.outcome = job::Outcome::kFailed;
        t.message += (t.message.empty() ? "Trace collection on " + host + ": " : "; ") + e.message;
        if (e.reason == job::CollectionFailure::kNothingFresh) nothing_fresh.insert(host);
      }
    out.subtests.push_back(t);
  }
  // An interrupted run stopped its training: what it never wrote is no failure of its
  // own, the interrupted stage says what happened (issue 31, 9); a copy that failed is.
  std::string why;
  if (interrupt_signal()) {
    why = " (the run was interrupted by " + interrupt_name() + " and its training stopped)";
    for (auto& t : out.subtests)
      if (t.outcome == job::Outcome::kFailed && nothing_fresh.count(t.value))
        t = {t.kind, t.key, t.value, job::Outcome::kSkipped, t.message + why};
  }
  // The nodes by name; each node's own sub-test says why (said once, issue 31, 6).
  const std::string nodes_failed =
      failed_subtests_line(out.subtests, "node's trace collection", "nodes' trace collections");
  if (!nodes_failed.empty()) out.failures.push_back(nodes_failed);
  if (!ctx.state.artifacts.count("torch_traces")) {
    const bool interrupt_only = !why.empty() && nodes_failed.empty();
    job::SubTest t{.kind = job::SubTestKind::kTraceCollection, .key = "artifact", .value = "torch_traces",
                   .outcome = interrupt_only ? job::Outcome::kSkipped : job::Outcome::kFailed,
                   .message = "No fresh torch_traces artifact was collected" + why};
    if (interrupt_only) out.skip_reason = "no traces to collect" + why;
    else out.failures.push_back(t.message);
    out.subtests.push_back(t);
  }
  return out;
}

// Whatever ran may have left traces.
bool benchmark_started(const job::RunState& s) { return s.benchmark_started; }

}  // namespace

extern const StageSpec kCollectTraces = {
    .test_name = "test_collect_traces",
    .label = "collect_traces",
    .body = collect_traces,
    .runs_after_failure = benchmark_started,
    .subtests = SubTestPlan{job::SubTestKind::kTraceCollection, "host", collecting_hosts},
};

}  // namespace aorta::stages
