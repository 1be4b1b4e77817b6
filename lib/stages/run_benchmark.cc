// test_run_benchmark: the training (torchrun on every node, or Aorta's launch
// script on one), waited for with progress, always stopped, then every node's
// kernel log scanned over the run's window.
#include <cstdlib>

#include <fmt/format.h>

#include "job/collect.h"
#include "job/kernel_log.h"
#include "job/launch.h"
#include "job/telemetry_sampler.h"
#include "stages/node_checks.h"
#include "stages/stage.h"

namespace aorta::stages {
namespace {

using std::chrono::seconds;

// Lines of each node's training log kept in the benchmark stage's log (Full Log page,
// JUnit <system-out>): the loss lines, or the traceback, of the run's end.
constexpr int kLogTailLines = 20;

// The node's clock as epoch seconds (date +%s.%N), or nothing.
std::optional<double> parse_clock(const cluster::HostResult& r) {
  if (!r.result.ok() || r.result->exit_code != 0) return std::nullopt;
  try {
    return std::stod(r.result->output);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Each node's launch command, with the rendezvous filled in (a free port asked of the
// head node when the config leaves it 0); nothing after a failure added to out.
std::optional<std::vector<std::string>> launch_commands(StageContext& ctx, const config::Variant& run_v,
                                                        job::Rendezvous& rdzv, StageResult& out) {
  auto& exec = ctx.exec;
  const auto& v = exec.variant();
  const size_t nodes = exec.hosts().size();
  if (job::launch_mode(v, nodes) == job::LaunchMode::kScript) {
    if (nodes != 1) {
      out.failures.push_back(fmt::format("master_launch_mode \"script\" starts the workload on one node, but the "
                                         "cluster has {}: use \"torchrun\" or \"auto\"", nodes));
      return std::nullopt;
    }
    return std::vector<std::string>{job::script_mode_command(run_v)};
  }
  rdzv.master_port = v.multi_node.master_port;
  if (rdzv.master_port == 0) {
    auto port = exec.in_container(
        0, "python3 -c 'import socket; s=socket.socket(); s.bind((\"\", 0)); print(s.getsockname()[1])'", seconds(60));
    int picked = port.result.ok() ? std::atoi(port.result->output.c_str()) : 0;
    if (picked < 1024 || picked > 65535) {
      out.failures.push_back("Invalid rendezvous port returned by head node " + exec.hosts().front());
      return std::nullopt;
    }
    rdzv.master_port = picked;
  }
  std::vector<std::string> commands;
  for (size_t i = 0; i < nodes; ++i) commands.push_back(job::torchrun_command(run_v, rdzv, nodes, i));
  return commands;
}

// The head node's local minute, "Wed Sep 23 12:00" (legacy window), or nothing.
std::optional<std::string> head_minute(StageContext& ctx) {
  auto head = ctx.exec.on_hosts(job::kLegacyDateCommand, seconds(60)).front();
  if (!head.result.ok() || head.result->exit_code != 0) return std::nullopt;
  return job::legacy_minute(head.result->output);
}

// The original's legacy scan: the head's minutes at start and now bound `dmesg -T`.
job::KernelScan scan_kernel_logs_legacy(StageContext& ctx, StageResult& out) {
  auto end = head_minute(ctx);
  if (!ctx.state.kernel_window_start_minute || !end) {
    out.failures.push_back("Dmesg scan incomplete: could not read the head node's clock");
    return {};
  }
  return job::scan_nodes_legacy(ctx.exec, *ctx.state.kernel_window_start_minute, *end);
}

// The kernel logs of every node over the run's window: errors fail the stage,
// degraded-GPU warnings are notes. Legacy errors keep the original's words (typo too).
void scan_kernel_logs(StageContext& ctx, StageResult& out) {
  auto& state = ctx.state;
  const bool legacy = state.kernel_log_backend == job::KernelLogBackend::kLegacy;
  job::KernelScan scan;
  if (legacy) {
    scan = scan_kernel_logs_legacy(ctx, out);
  } else {
    auto end_clock = ctx.exec.on_hosts("date +%s.%N", seconds(60));
    auto window_end = parse_clock(end_clock.front());
    if (!state.kernel_window_start || !window_end) {
      out.failures.push_back("Dmesg scan incomplete: could not read the head node's clock");
      return;
    }
    scan = job::scan_nodes(ctx.exec, *state.kernel_window_start - 1, *window_end + 1);
  }
  if (!scan.failed_hosts.empty())
    out.failures.push_back("Dmesg scan incomplete: failed hosts [" + fmt::format("{}", fmt::join(scan.failed_hosts, ", ")) +
                           "]. Give the job user passwordless `sudo dmesg` on those nodes.");
  for (const auto& m : scan.matches) {
    std::string text = m.warn_only ? fmt::format("WARN - GPU in degraded state ({}) on {}: {} -- perf numbers from this run "
                                                 "may not be trustworthy", m.category, m.host, m.line)
                       : legacy    ? fmt::format("ERROR - Failue pattern ** {} ** seen in Dmesg", m.line)
                                   : job::kernel_event_text(m);
    state.kernel_log_matches.push_back(text);
    (m.warn_only ? out.log : out.failures).push_back(text);
  }
}

// The clocks that bound the kernel-log window and the trace floor of each node.
void read_start_clocks(StageContext& ctx) {
  auto head_clock = ctx.exec.on_hosts("date +%s.%N", seconds(60));
  ctx.state.kernel_window_start = parse_clock(head_clock.front());
  if (ctx.state.kernel_log_backend == job::KernelLogBackend::kLegacy) ctx.state.kernel_window_start_minute = head_minute(ctx);
  // Files older than the node's clock at start, less a minute for clock skew between
  // the node and shared storage, are stale traces from earlier runs.
  for (const auto& r : ctx.exec.in_containers("date +%s.%N", seconds(60)))
    if (auto t = parse_clock(r)) ctx.state.trace_floor[r.host] = *t - 60;
}

// The GPU sampler beside the training: what it says goes to the stage log (shown on
// the console too); the run goes on either way.
void start_telemetry(StageContext& ctx, StageResult& out) {
  auto said = job::start_samplers(ctx.exec, ctx.state, "benchmark");
  for (auto& line : said.notes) out.log.push_back(std::move(line));
  for (auto& line : said.warnings) out.log.push_back(std::move(line));
}

StageResult run_benchmark(StageContext& ctx) {
  StageResult out;
  auto& exec = ctx.exec;
  auto& state = ctx.state;
  const auto& v = exec.variant();
  const auto& cluster = exec.cluster();
  job::Rendezvous rdzv;
  rdzv.master_addr = !v.multi_node.master_addr.empty() ? v.multi_node.master_addr
                     : !cluster.head().vpc_ip.empty() ? cluster.head().vpc_ip
                                                       : cluster.head().name;
  // Each run asks for a folder of its own (issue 14); collection prefers it when the
  // workload took the override. Aorta's own launch scripts drop every argument but the
  // config, so collection walks the whole repository as well (issue 28). A config
  // that sets training.output_dir itself keeps it.
  config::Variant run_v = v;
  if (!job::sets_output_dir(v))
    run_v.training_overrides.emplace_back(job::kOutputDirKey,
                                          job::run_output_dir(v, state.run_id) + "/" + job::kRunOutputName);
  auto commands = launch_commands(ctx, run_v, rdzv, out);
  if (!commands) return out;
  read_start_clocks(ctx);
  for (auto& note : job::snapshot_existing_traces(exec, state)) out.log.push_back(std::move(note));
  state.started_at = std::chrono::system_clock::now();
  state.status = job::RunStatus::kRunning;
  state.benchmark_started = true;
  Status run = job::start_phase(exec, state, "benchmark", *commands, rdzv, &run_v);
  if (run) start_telemetry(ctx, out);
  keep_last_wills(ctx, out);
  if (run) run = job::wait_for_phase(exec, state, "benchmark", seconds(v.timeout_seconds), ctx.log, ctx.training_output);
  state.ended_at = std::chrono::system_clock::now();
  if (run) {
    state.status = job::RunStatus::kCompleted;
  } else {
    state.status = run.error().code == ErrorCode::kTimeout ? job::RunStatus::kTimeout : job::RunStatus::kFailed;
    state.error_message = run.error().message;
    out.failures.push_back(run.error().message);
  }
  // Stop and scan run whatever happened above: a failed or hung run must not leave
  // processes behind, and its kernel errors are the most useful finding.
  if (Status s = job::stop_phase(exec, state, "benchmark"); !s) out.failures.push_back(s.error().message);
  if (Status s = job::stop_samplers(exec, state); !s) out.failures.push_back(s.error().message);
  for (auto& line : job::phase_log_tails(exec, state, "benchmark", kLogTailLines)) out.log.push_back(std::move(line));
  scan_kernel_logs(ctx, out);
  return out;
}

}  // namespace

extern const StageSpec kRunBenchmark = {
    .test_name = "test_run_benchmark",
    .label = "benchmark",
    .body = run_benchmark,
    .starts_work = true,
};

}  // namespace aorta::stages
