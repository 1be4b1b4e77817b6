// test_teardown: stops what still runs, copies the logs home, hands the repository
// back to its owner, removes the containers and earlier runs' folders beyond
// keep_node_runs, and releases the node locks; every
// error joined into one failure. It always runs, and runs at the suite's end when
// its test did not.
#include <fmt/format.h>

#include "common/shell_quote.h"
#include "job/collect.h"
#include "job/container.h"
#include "job/checkout_lock.h"
#include "job/run_retention.h"
#include "stages/stage.h"

namespace aorta::stages {
namespace {

// Containers run as root: the repository goes back to each node's owner.
void restore_owners(job::NodeExec& exec, const job::RunState& state, std::vector<std::string>& errors) {
  std::vector<std::string> chowns;
  for (const auto& host : exec.hosts()) {
    auto owner = state.host_owner.find(host);
    chowns.push_back(owner == state.host_owner.end()
                         ? "true"
                         : "chown -R " + shell_quote(owner->second) + " " + shell_quote(exec.variant().node_repo_path()));
  }
  auto restored = exec.in_containers_each(chowns, std::chrono::seconds(120));
  if (!cluster::all_succeeded(restored)) errors.push_back("chown failed: " + cluster::describe_failures(restored));
}

StageResult teardown(StageContext& ctx) {
  StageResult out;
  auto& exec = ctx.exec;
  auto& state = ctx.state;
  if (!state.container_removal_failed.empty()) {
    // The fixture's retry after a teardown whose container removal failed: only
    // that, and only once (the list is not refilled).
    auto hosts = std::exchange(state.container_removal_failed, {});
    if (Status s = job::remove_containers(exec, hosts); !s) out.failures.push_back(s.error().message);
    return out;
  }
  std::vector<std::string> errors;
  for (const auto& phase : state.launched_phases)
    if (Status s = job::stop_phase(exec, state, phase); !s) errors.push_back(s.error().message);
  for (const auto& w : job::collect_logs(exec, state)) out.log.push_back(w);
  if (state.container_started && exec.variant().container.runtime == config::RuntimeKind::kDocker)
    restore_owners(exec, state, errors);
  // Without container_started, launch already removed what it had started (or never
  // reached the nodes); asking unreachable nodes again would only add noise.
  if (state.container_started)
    if (Status s = job::remove_containers(exec, {}, &state.container_removal_failed); !s)
      errors.push_back(s.error().message);
  // Old runs' folders go while this run still holds the nodes' locks (no run uses them).
  auto retention = job::apply_retention(exec, state);
  for (auto& note : retention.notes) out.log.push_back("run folders on " + note);
  errors.insert(errors.end(), retention.errors.begin(), retention.errors.end());
  if (Status s = job::release_workdir_locks(exec, state); !s) errors.push_back(s.error().message);
  if (!errors.empty()) out.failures.push_back(fmt::format("{}", fmt::join(errors, "; ")));
  return out;
}

bool always(const job::RunState&) { return true; }

}  // namespace

extern const StageSpec kTeardown = {
    .test_name = "test_teardown",
    .label = "teardown",
    .body = teardown,
    .runs_after_failure = always,
    .tears_down = true,
};

}  // namespace aorta::stages
