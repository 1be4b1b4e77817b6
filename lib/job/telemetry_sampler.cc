#include "job/telemetry_sampler.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "common/shell_quote.h"
#include "job/phase.h"
#include "telemetry/sampler_script.h"

namespace aorta::job {
namespace {

constexpr const char* kHeaderMarker = "CVS_AORTA_TELEMETRY_HEADER=";

std::string in_work_dir(const NodeExec& exec, const RunState& state, size_t i, const std::string& name) {
  return node_work_dir(exec.variant(), state.run_id, i) + "/" + name;
}

telemetry::SamplerPlan plan_of(const NodeExec& exec, const RunState& state, size_t i, const std::string& training) {
  const auto& v = exec.variant();
  return telemetry::sampler_plan(exec.hosts()[i], node_work_dir(v, state.run_id, i),
                                 in_work_dir(exec, state, i, training + ".pid"), v.telemetry.interval_seconds,
                                 v.timeout_seconds);
}

// Writes the script (the work folder exists: the training's phase made it), starts it
// detached, and prints its header once written (at most 5 s): the tool it took.
std::string start_command(const NodeExec& exec, const RunState& state, size_t i, const std::string& training) {
  const std::string script = in_work_dir(exec, state, i, std::string(kTelemetryPhase) + ".sh");
  const std::string log = in_work_dir(exec, state, i, telemetry::kSampleFile);
  return "umask 077 && rm -f " + shell_quote(in_work_dir(exec, state, i, telemetry::kStopFile)) + " && printf %s " +
         shell_quote(telemetry::sampler_script(plan_of(exec, state, i, training))) + " > " + shell_quote(script) +
         " || exit 1; " +  // its own list: the start's `&` must background the sampler alone
         detached_start_command(script, in_work_dir(exec, state, i, std::string(kTelemetryPhase) + ".out"),
                                in_work_dir(exec, state, i, std::string(kTelemetryPhase) + ".pid")) +
         " && for i in $(seq 50); do [ -s " + shell_quote(log) + " ] && break; sleep 0.1; done; printf '%s' " +
         kHeaderMarker + "; head -n 1 " + shell_quote(log) + " 2>/dev/null; true";
}

// The stop file, then a bounded wait for the sampler's group to end by itself.
std::string ask_to_end_command(const NodeExec& exec, const RunState& state, size_t i) {
  const int waits = 4 * (plan_of(exec, state, i, "").edge_limit_seconds + 3);
  return "touch " + shell_quote(in_work_dir(exec, state, i, telemetry::kStopFile)) +
         " 2>/dev/null; pid=$(cat " + shell_quote(in_work_dir(exec, state, i, std::string(kTelemetryPhase) + ".pid")) +
         " 2>/dev/null); case \"$pid\" in ''|*[!0-9]*) ;; *) if [ \"$pid\" -gt 1 ]; then for i in $(seq " +
         std::to_string(waits) + "); do kill -0 -- -\"$pid\" 2>/dev/null || break; sleep 0.25; done; fi;; esac; true";
}

}  // namespace

SamplerStart start_samplers(NodeExec& exec, RunState& state, const std::string& training_label) {
  if (!exec.variant().telemetry.enabled) return {{"GPU telemetry: off (telemetry.enabled false)"}, {}};
  std::vector<std::string> starts;
  for (size_t i = 0; i < exec.hosts().size(); ++i) starts.push_back(start_command(exec, state, i, training_label));
  state.launched_phases.push_back(kTelemetryPhase);
  auto started = exec.in_containers_each(starts, std::chrono::seconds(60));
  remember_phase_pids(state, kTelemetryPhase, started);
  SamplerStart said;
  std::map<std::string, size_t> nodes_by_tool;  // one line for the lot, however many nodes
  std::vector<std::string> without_tool;
  for (const auto& r : started) {
    auto header = r.result.ok() && r.result->exit_code == 0 ? marked_line(r.result->output, kHeaderMarker) : std::nullopt;
    const std::string tool = header ? telemetry::header_tool(*header) : "";
    if (tool == "none")
      without_tool.push_back(r.host);
    else if (!tool.empty())
      ++nodes_by_tool[tool];
    else
      said.warnings.push_back(fmt::format("node {}: the GPU telemetry sampler did not start ({}); the run goes on without it",
                                  r.host, r.result.ok() ? "no header written" : r.result.error().message));
  }
  if (!without_tool.empty()) said.warnings.push_back(telemetry::no_tool_line(without_tool));
  for (const auto& [tool, nodes] : nodes_by_tool)
    said.notes.push_back(fmt::format("GPU telemetry every {} s with {} on {} node(s)",
                                     exec.variant().telemetry.interval_seconds, tool, nodes));
  return said;
}

Status stop_samplers(NodeExec& exec, RunState& state) {
  const auto& launched = state.launched_phases;
  if (std::find(launched.begin(), launched.end(), kTelemetryPhase) == launched.end()) return ok_status();
  std::vector<std::string> asks;
  for (size_t i = 0; i < exec.hosts().size(); ++i) asks.push_back(ask_to_end_command(exec, state, i));
  // What the asks said does not matter: stop_phase below ends whatever still runs.
  (void)exec.in_containers_each(asks, std::chrono::seconds(120));
  return stop_phase(exec, state, kTelemetryPhase);
}

}  // namespace aorta::job
