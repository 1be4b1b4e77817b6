#include "job/stages.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <set>

#include <fmt/format.h>

#include "common/shell_quote.h"
#include "job/analysis_reports.h"
#include "job/collect.h"
#include "job/container.h"
#include "job/kernel_log.h"
#include "job/launch.h"
#include "job/workdir.h"
#include "tracelens/excel_reports.h"

namespace aorta::job {
namespace {

using std::chrono::seconds;

// Lines of each node's training log kept in the benchmark stage's log (Full Log page,
// JUnit <system-out>): the loss lines, or the traceback, of the run's end.
constexpr int kLogTailLines = 20;

std::string entry_check(const std::string& root, const std::vector<std::string>& entries) {
  std::string cmd;
  for (const auto& e : entries) cmd += (cmd.empty() ? "" : " && ") + ("test -f " + shell_quote(root + "/" + e));
  return cmd;
}

// The node's clock as epoch seconds (date +%s.%N), or nothing.
std::optional<double> parse_clock(const cluster::HostResult& r) {
  if (!r.result.ok() || r.result->exit_code != 0) return std::nullopt;
  try {
    return std::stod(r.result->output);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void require_all(const std::vector<cluster::HostResult>& results, const std::string& what, StageOutcome& out) {
  if (!cluster::all_succeeded(results))
    out.failures.push_back("Aorta command failed on [" + what + "]: " + cluster::describe_failures(results));
}

}  // namespace

std::vector<std::string> required_entry_points(const config::Variant& v, size_t nodes) {
  std::vector<std::string> entries = {v.base_config};
  if (!v.skip_rccl_build) entries.push_back(v.build_script);
  entries.push_back(launch_mode(v, nodes) == LaunchMode::kScript ? v.experiment_script : v.multi_node.train_script);
  return entries;
}

StageOutcome launch_container(StageContext& ctx) {
  StageOutcome out;
  auto& exec = ctx.exec;
  const auto& v = exec.variant();
  // Owner ids are restored on the repository at teardown (containers run as root);
  // render gids let the container user open the GPU devices.
  auto ids = exec.on_hosts("id -u && id -g && (getent group render | cut -d: -f3 || true)", seconds(60));
  std::vector<std::string> groups = {"video"};
  for (const auto& g : v.container.args.group_add)
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  for (const auto& r : ids) {
    if (!r.result.ok() || r.result->exit_code != 0) continue;
    std::istringstream lines(r.result->output);
    std::string uid, gid, render;
    std::getline(lines, uid);
    std::getline(lines, gid);
    std::getline(lines, render);
    // Digits only: teardown hands the repository back with this as chown's argument,
    // and a node's shell may print a banner before id's output.
    auto numeric = [](const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; };
    if (numeric(uid) && numeric(gid)) ctx.state.host_owner[r.host] = uid + ":" + gid;
    if (!render.empty() && render.find_first_not_of("0123456789") == std::string::npos &&
        std::find(groups.begin(), groups.end(), render) == groups.end())
      groups.push_back(render);
  }
  require_all(ids, "prepare hosts", out);
  if (out.failed()) return out;

  // The working folder is created private (0700) and checked before anything in it
  // is used: an existing checkout is trusted as it is, so whoever could have placed
  // it there would run their scripts as this user (issue 14).
  std::string repo = shell_quote(v.aorta_path);
  std::string parent = std::filesystem::path(v.aorta_path).parent_path().string();
  auto created = exec.on_hosts(private_mkdir_command(v.aorta_auto_clone ? parent : v.aorta_path), seconds(60));
  require_all(created, v.aorta_auto_clone ? "create the folder of aorta_path" : "create aorta_path", out);
  if (out.failed()) return out;
  if (Status s = check_workdir(exec); !s) {
    out.failures.push_back(s.error().message);
    return out;
  }
  if (v.aorta_auto_clone) {
    // Clone beside the target and rename into place: on storage that several nodes
    // share, one clone wins and the others find it there.
    std::string marker = shell_quote(v.aorta_path + "/" + v.base_config);
    std::string prepare = "umask 077 && if ! test -f " + marker + "; then tmp=" + repo +
                          ".clone.$(hostname).$$ && rm -rf \"$tmp\" && " + "git clone -q -- " +
                          shell_quote(v.aorta_clone_url) + " \"$tmp\" && " + "{ mv -T \"$tmp\" " + repo +
                          " 2>/dev/null || { rm -rf \"$tmp\"; test -f " + marker + "; }; }; fi";
    auto prepared = exec.on_hosts(prepare, seconds(600));
    require_all(prepared, "clone Aorta", out);
    if (out.failed()) {
      out.failures.push_back("If the nodes cannot reach " + v.aorta_clone_url +
                             " (compute nodes often cannot), clone Aorta from a login node into " + v.aorta_path +
                             " and set aorta_auto_clone to false.");
      return out;
    }
  }
  auto entries = required_entry_points(v, exec.hosts().size());
  auto checked = exec.on_hosts(entry_check(v.aorta_path, entries), seconds(600));
  if (!cluster::all_succeeded(checked)) {
    out.failures.push_back("Aorta entry points missing under aorta_path " + v.aorta_path + " (need " +
                           fmt::format("{}", fmt::join(entries, ", ")) + "): " + cluster::describe_failures(checked) +
                           ". Place Aorta there on each node, or set aorta_auto_clone and aorta_clone_url.");
    return out;
  }
  // One run at a time per node and aorta_path: before the container, whose name
  // another run of the same user would share (and replace).
  if (Status s = acquire_workdir_locks(exec, ctx.state, out.notes); !s) {
    out.failures.push_back(s.error().message);
    return out;
  }
  if (Status s = launch_containers(exec, groups); !s) {
    out.failures.push_back(s.error().message);
    return out;
  }
  ctx.state.container_started = true;
  if (Status s = verify_containers(exec); !s) out.failures.push_back(s.error().message);
  if (v.container.runtime == config::RuntimeKind::kNone) out.notes.push_back("container runtime none: commands run directly on each node");
  return out;
}

StageOutcome clone_aorta(StageContext& ctx) {
  StageOutcome out;
  const auto& v = ctx.exec.variant();
  auto entries = required_entry_points(v, ctx.exec.hosts().size());
  auto checked = ctx.exec.in_containers(entry_check(v.node_repo_path(), entries), seconds(600));
  require_all(checked, "verify Aorta in the container", out);
  return out;
}

StageOutcome setup_rdma(StageContext& ctx) {
  StageOutcome out;
  std::string cmd = "command -v torchrun";
  for (const auto& dev : ctx.exec.variant().container.args.devices) {
    std::string inside = dev.find(':') == std::string::npos ? dev : dev.substr(dev.find(':') + 1);
    inside = inside.substr(0, inside.find(':'));
    if (inside.rfind("/dev/infiniband/", 0) == 0) cmd += " && test -e " + shell_quote(inside);
  }
  require_all(ctx.exec.in_containers(cmd, seconds(60)), "torchrun and RDMA devices", out);
  return out;
}

StageOutcome build_rccl(StageContext& ctx) {
  StageOutcome out;
  const auto& v = ctx.exec.variant();
  if (v.skip_rccl_build) {
    out.skip_reason = kSkipRcclBuild;
    return out;
  }
  std::string cmd = "bash " + shell_quote(v.node_repo_path() + "/" + v.build_script);
  std::vector<std::string> commands(ctx.exec.hosts().size(), cmd);
  Status s = start_phase(ctx.exec, ctx.state, "rccl", commands, Rendezvous{});
  if (s) s = wait_for_phase(ctx.exec, ctx.state, "rccl", seconds(v.timeout_seconds), ctx.log);
  Status stopped = stop_phase(ctx.exec, ctx.state, "rccl");
  if (!stopped) out.notes.push_back("Failed to stop RCCL build process groups: " + stopped.error().message);
  if (!s) out.failures.push_back(s.error().message);
  return out;
}

StageOutcome run_benchmark(StageContext& ctx) {
  StageOutcome out;
  auto& exec = ctx.exec;
  auto& state = ctx.state;
  const auto& v = exec.variant();
  const auto& cluster = exec.cluster();
  size_t nodes = exec.hosts().size();
  LaunchMode mode = launch_mode(v, nodes);
  Rendezvous rdzv;
  rdzv.master_addr = !v.multi_node.master_addr.empty() ? v.multi_node.master_addr
                     : !cluster.head().vpc_ip.empty() ? cluster.head().vpc_ip
                                                       : cluster.head().name;
  if (mode == LaunchMode::kScript && nodes != 1) {
    out.failures.push_back(fmt::format("master_launch_mode \"script\" starts the workload on one node, but the cluster "
                                       "has {}: use \"torchrun\" or \"auto\"", nodes));
    return out;
  }
  // Each run asks for a folder of its own (issue 14); collection prefers it when the
  // workload took the override. Aorta's own launch scripts drop every argument but the
  // config, so collection walks the whole repository as well (issue 28). A config
  // that sets training.output_dir itself keeps it.
  config::Variant run_v = v;
  if (!sets_output_dir(v))
    run_v.training_overrides.emplace_back(kOutputDirKey, run_output_dir(v, state.run_id) + "/" + kRunOutputName);
  std::vector<std::string> commands;
  if (mode == LaunchMode::kScript) {
    commands.push_back(script_mode_command(run_v));
  } else {
    rdzv.master_port = v.multi_node.master_port;
    if (rdzv.master_port == 0) {
      auto port = exec.in_container(
          0, "python3 -c 'import socket; s=socket.socket(); s.bind((\"\", 0)); print(s.getsockname()[1])'", seconds(60));
      int picked = port.result.ok() ? std::atoi(port.result->output.c_str()) : 0;
      if (picked < 1024 || picked > 65535) {
        out.failures.push_back("Invalid rendezvous port returned by head node " + exec.hosts().front());
        return out;
      }
      rdzv.master_port = picked;
    }
    for (size_t i = 0; i < nodes; ++i) commands.push_back(torchrun_command(run_v, rdzv, nodes, i));
  }

  auto head_clock = exec.on_hosts("date +%s.%N", seconds(60));
  state.kernel_window_start = parse_clock(head_clock.front());
  // Files older than the node's clock at start, less a minute for clock skew between
  // the node and shared storage, are stale traces from earlier runs.
  auto clocks = exec.in_containers("date +%s.%N", seconds(60));
  for (const auto& r : clocks)
    if (auto t = parse_clock(r)) state.trace_floor[r.host] = *t - 60;

  for (auto& note : snapshot_existing_traces(exec, state)) out.notes.push_back(std::move(note));
  state.started_at = std::chrono::system_clock::now();
  state.status = RunStatus::kRunning;
  state.benchmark_started = true;
  Status run = start_phase(exec, state, "benchmark", commands, rdzv, &run_v);
  if (run) run = wait_for_phase(exec, state, "benchmark", seconds(v.timeout_seconds), ctx.log, ctx.training_output);
  state.ended_at = std::chrono::system_clock::now();
  if (run) {
    state.status = RunStatus::kCompleted;
  } else {
    state.status = run.error().code == ErrorCode::kTimeout ? RunStatus::kTimeout : RunStatus::kFailed;
    state.error_message = run.error().message;
    out.failures.push_back(run.error().message);
  }
  // Stop and scan run whatever happened above: a failed or hung run must not leave
  // processes behind, and its kernel errors are the most useful finding.
  if (Status s = stop_phase(exec, state, "benchmark"); !s) out.failures.push_back(s.error().message);
  for (auto& line : phase_log_tails(exec, state, "benchmark", kLogTailLines)) out.notes.push_back(std::move(line));
  auto end_clock = exec.on_hosts("date +%s.%N", seconds(60));
  auto window_end = parse_clock(end_clock.front());
  if (!state.kernel_window_start || !window_end) {
    out.failures.push_back("Dmesg scan incomplete: could not read the head node's clock");
    return out;
  }
  KernelScan scan = scan_nodes(exec, *state.kernel_window_start - 1, *window_end + 1);
  if (!scan.failed_hosts.empty())
    out.failures.push_back("Dmesg scan incomplete: failed hosts [" + fmt::format("{}", fmt::join(scan.failed_hosts, ", ")) +
                           "]. Give the job user passwordless `sudo dmesg` on those nodes.");
  for (const auto& m : scan.matches) {
    std::string text = m.warn_only ? fmt::format("WARN - GPU in degraded state ({}) on {}: {} -- perf numbers from this run "
                                                 "may not be trustworthy", m.category, m.host, m.line)
                                   : fmt::format("ERROR - Failure pattern *** {} *** seen in Dmesg on node {}", m.line, m.host);
    state.kernel_log_matches.push_back(text);
    (m.warn_only ? out.notes : out.failures).push_back(text);
  }
  return out;
}

bool collects_every_node(const config::Variant& v, size_t nodes) {
  return launch_mode(v, nodes) == LaunchMode::kTorchrun && v.multi_node.collect_traces;
}

std::vector<std::string> collecting_hosts(const config::Variant& v, const std::vector<std::string>& hosts) {
  if (collects_every_node(v, hosts.size()) || hosts.empty()) return hosts;
  return {hosts.front()};
}

StageOutcome collect_traces_stage(StageContext& ctx) {
  StageOutcome out;
  const auto& v = ctx.exec.variant();
  out.notes = collect_traces(ctx.exec, ctx.state, collects_every_node(v, ctx.exec.hosts().size()), ctx.log);
  for (const auto& w : collect_logs(ctx.exec, ctx.state)) out.notes.push_back(w);
  for (const auto& host : collecting_hosts(v, ctx.exec.hosts())) {
    SubTest t{SubTestKind::kTraceCollection, "host", host};
    for (const auto& [h, message] : ctx.state.collection_errors)
      if (h == host) {
        t.outcome = Outcome::kFailed;
        t.message = "Trace collection on " + host + ": " + message;
        out.failures.push_back(t.message);
      }
    out.subtests.push_back(t);
  }
  if (!ctx.state.artifacts.count("torch_traces")) {
    SubTest t{SubTestKind::kTraceCollection, "artifact", "torch_traces", Outcome::kFailed,
              "No fresh torch_traces artifact was collected"};
    out.failures.push_back(t.message);
    out.subtests.push_back(t);
  }
  return out;
}

StageOutcome analyze(StageContext& ctx) {
  StageOutcome out;
  const auto& v = ctx.exec.variant();
  if (!v.analysis.enable_tracelens && !v.analysis.enable_gemm_analysis) {
    out.skip_reason = kSkipAnalysis;
    return out;
  }
  const std::string& head = ctx.exec.hosts().front();
  auto trees = ctx.state.trace_trees.find(head);
  if (trees == ctx.state.trace_trees.end() || trees->second.empty()) {
    out.notes.push_back("No head-node traces available for optional analysis");
    return out;
  }
  std::string tree = trees->second.front();
  // Trees are relative to the repository, wherever the workload wrote them.
  std::string output = v.node_repo_path() + "/" + std::filesystem::path(tree).parent_path().string();
  // Both tools write into this one folder (reference §1.9); each run's copy goes to
  // analysis/<tool>. Reports older than the head's trace floor are an earlier run's,
  // unless skip_if_exists asked to keep an earlier run's reports.
  std::string reports = output + "/tracelens_analysis";
  double floor = v.analysis.skip_if_exists || !ctx.state.trace_floor.count(head) ? 0 : ctx.state.trace_floor.at(head);
  for (auto [enabled, script, name] : {std::tuple{v.analysis.enable_tracelens, v.analysis.tracelens_script, "tracelens_analysis"},
                                       std::tuple{v.analysis.enable_gemm_analysis, v.analysis.gemm_script, "gemm_analysis"}}) {
    if (!enabled) continue;
    const std::string failed = std::string("Optional ") + name + " failed; raw traces remain available: ";
    std::string cmd = "cd " + shell_quote(v.node_repo_path()) + " && " +
                      (std::string(name) == "tracelens_analysis" ? "python3 -c 'import TraceLens' && " : "") + "bash " +
                      shell_quote(v.node_repo_path() + "/" + script) + " " + shell_quote(output);
    if (v.analysis.skip_if_exists) cmd = "test -d " + shell_quote(reports) + " || ( " + cmd + " )";
    std::vector<cluster::HostResult> r{ctx.exec.in_container(0, cmd, seconds(v.timeout_seconds))};
    if (!cluster::all_succeeded(r)) {
      out.notes.push_back(failed + cluster::describe_failures(r, 500));
      continue;
    }
    std::filesystem::path dest = ctx.state.output_root / "analysis" / name;
    std::error_code ec;
    std::filesystem::create_directories(dest.parent_path(), ec);
    auto fetched = fetch_report_folder(ctx.exec, 0, reports, floor, dest, ctx.state.output_root, seconds(v.timeout_seconds));
    if (!fetched) {
      out.notes.push_back(failed + head + ": " + fetched.error().message);
      continue;
    }
    ctx.state.artifacts[name] = dest;
    out.notes.push_back(fmt::format("{}: {} report file(s), {:.1f} MB, from {}:{} in {}", name, fetched->files,
                                    fetched->bytes / 1e6, head, reports, dest.string()));
    if (!fetched->older.empty())
      out.notes.push_back(fmt::format("{}: skipped {} older report file(s) in {} (an earlier run's): {}{}", name,
                                      fetched->older.size(), reports,
                                      fmt::join(fetched->older.begin(),
                                                fetched->older.begin() + std::min<size_t>(fetched->older.size(), 3), ", "),
                                      fetched->older.size() > 3 ? ", ..." : ""));
  }
  return out;
}

namespace {

// Reference §3.3: on one node, TraceLens's per-rank Excel reports, when the analysis
// brought some home, are the metrics source.
std::optional<metrics::TraceSet> excel_reports_source(StageContext& ctx) {
  if (ctx.exec.hosts().size() != 1) return std::nullopt;
  auto analysis = ctx.state.artifacts.find("tracelens_analysis");
  if (analysis == ctx.state.artifacts.end() || tracelens::find_excel_reports(analysis->second).empty()) return std::nullopt;
  return tracelens::parse_excel_reports(analysis->second);
}

// The workbook has no steps or memory figures: each rank takes them from its own
// trace. A workbook whose total differs from its trace's is not of this run (an
// earlier run's kept by skip_if_exists): that rank is the trace's, and so is a rank
// the workbooks lack.
void join_trace_ranks(metrics::TraceSet& excel, const metrics::TraceSet& raw, std::vector<std::string>& notes) {
  for (const auto& traced : raw.ranks) {
    if (!traced.rank) continue;
    auto rank = std::find_if(excel.ranks.begin(), excel.ranks.end(), [&](const auto& r) { return r.rank == traced.rank; });
    if (rank == excel.ranks.end()) {
      notes.push_back(fmt::format("rank {} has no TraceLens report; its trace's figures are used ({})", *traced.rank,
                                  traced.source));
      excel.ranks.push_back(traced);
    } else if (std::abs(traced.total_time_us - rank->total_time_us) > 1e-3 * traced.total_time_us) {
      notes.push_back(fmt::format("rank {}: the TraceLens report says {:.3f} ms in all, its trace {:.3f} ms: the report "
                                  "is not of this run's trace, whose figures are used ({})",
                                  *traced.rank, rank->total_time_us / 1000, traced.total_time_us / 1000, traced.source));
      *rank = traced;
    } else {
      rank->steps = traced.steps;
      rank->peak_memory_gb = traced.peak_memory_gb;
    }
  }
}

}  // namespace

namespace {

// "rank 2, rank 5" when fewer than `expected` ranks of 0..expected-1 were parsed (a
// rank of unknown number counts as one of them); nothing when all were.
std::optional<std::string> missing_ranks(const std::vector<metrics::RankMetrics>& ranks, size_t expected) {
  std::set<int> seen;
  size_t unknown = 0;
  for (const auto& r : ranks) {
    if (r.rank && *r.rank >= 0 && static_cast<size_t>(*r.rank) < expected) seen.insert(*r.rank);
    if (!r.rank) ++unknown;
  }
  if (seen.size() + unknown >= expected) return std::nullopt;
  std::vector<std::string> names;
  for (size_t k = 0; k < expected; ++k)
    if (!seen.count(static_cast<int>(k))) names.push_back("rank " + std::to_string(k));
  return fmt::format("{}{}", fmt::join(names, ", "),
                     unknown ? fmt::format(" ({} parsed rank(s) of unknown number may be among them)", unknown) : "");
}

}  // namespace

StageOutcome parse_results(StageContext& ctx) {
  StageOutcome out;
  auto& state = ctx.state;
  if (state.status != RunStatus::kCompleted && state.status != RunStatus::kPending)
    out.notes.push_back("Run did not succeed: " + state.error_message);
  auto traces = state.artifacts.find("torch_traces");
  state.parse.reset();
  const bool have_traces = traces != state.artifacts.end() && std::filesystem::is_directory(traces->second);
  metrics::AnalyzeOptions options;  // one trace per core at once
  options.progress = ctx.log;
  if (auto excel = excel_reports_source(ctx)) {
    for (const auto& w : excel->warnings) out.notes.push_back(w);
    for (const auto& e : excel->errors) out.notes.push_back("TraceLens report error: " + e);
    if (!excel->ranks.empty()) {
      out.notes.push_back(fmt::format("Metrics from the TraceLens Excel reports: {} of {} report(s) in {}", excel->files_parsed,
                                      excel->files_found, state.artifacts["tracelens_analysis"].string()));
      if (have_traces) join_trace_ranks(*excel, metrics::analyze_traces(traces->second, options), out.notes);
      state.parse = std::move(*excel);
    }
  }
  if (!state.parse) {
    if (!have_traces) {
      out.failures.push_back("No torch_traces artifact; cannot parse benchmark metrics");
      return out;
    }
    state.parse = metrics::analyze_traces(traces->second, options);
    for (const auto& w : state.parse->warnings) out.notes.push_back(w);
    for (const auto& e : state.parse->errors) out.notes.push_back("trace error: " + e);
  }
  if (state.parse->status == metrics::ParseStatus::kFailed || state.parse->ranks.empty()) {
    out.failures.push_back("Aorta parsing produced no usable metrics: [" + fmt::format("{}", fmt::join(state.parse->errors, "; ")) + "]");
    return out;
  }
  auto aggregated = metrics::aggregate(state.parse->ranks);
  if (!aggregated) {
    out.failures.push_back("Aorta aggregation produced no benchmark result: " + aggregated.error().message);
    return out;
  }
  state.result = std::move(aggregated.value());
  // Every rank the run was to have must be there (issue 29): gates judged on the ranks
  // that remain would pass a run that lost a GPU's figures. The result stays for the
  // reports; validation is gated by this failure.
  const size_t expected = ctx.exec.hosts().size() * static_cast<size_t>(std::max(1, ctx.exec.variant().ranks_per_node()));
  if (auto missing = missing_ranks(state.parse->ranks, expected))
    out.failures.push_back(fmt::format("{} of {} expected rank(s) parsed ({} node(s) x {}); missing: {}{}",
                                       state.parse->ranks.size(), expected, ctx.exec.hosts().size(),
                                       ctx.exec.variant().ranks_per_node(), *missing,
                                       state.parse->errors.empty() ? std::string()
                                                                   : " (" + state.parse->errors.front() + ")"));
  return out;
}

SubTest threshold_subtest(const metrics::ThresholdCheck& check) {
  SubTest t{SubTestKind::kThreshold, "metric", check.key, check.passed ? Outcome::kPassed : Outcome::kFailed,
            check.message, check.actual, check.limit, check.kind == metrics::ThresholdKind::kMax ? Gate::kMax : Gate::kMin};
  t.unit = check.unit == "fraction" ? "" : check.unit;  // fractions print bare: "actual 0.75, min 0.5"
  return t;
}

StageOutcome validate_thresholds(StageContext& ctx) {
  StageOutcome out;
  const auto& v = ctx.exec.variant();
  if (!v.enforce_thresholds) {
    // Recorded, not enforced: each threshold's sub-test still shows its value and limit.
    out.skip_reason = kSkipThresholds;
    if (ctx.state.result)
      for (const auto& check : metrics::check_thresholds(*ctx.state.result, v.thresholds)) {
        SubTest t = threshold_subtest(check);
        t.message = check.passed ? kSkipThresholds : std::string(kSkipThresholds) + " (would fail: " + check.message + ")";
        t.outcome = Outcome::kSkipped;
        out.subtests.push_back(t);
      }
    return out;
  }
  if (!ctx.state.result) {
    out.failures.push_back("No benchmark result to validate");
    return out;
  }
  for (const auto& check : metrics::check_thresholds(*ctx.state.result, v.thresholds)) {
    if (!check.passed) out.failures.push_back(check.message);
    out.subtests.push_back(threshold_subtest(check));
  }
  return out;
}

StageOutcome teardown(StageContext& ctx) {
  StageOutcome out;
  auto& exec = ctx.exec;
  auto& state = ctx.state;
  std::vector<std::string> errors;
  if (!state.container_removal_failed.empty()) {
    // The fixture's retry after a teardown whose container removal failed: only
    // that, and only once (the list is not refilled).
    auto hosts = std::exchange(state.container_removal_failed, {});
    if (Status s = remove_containers(exec, hosts); !s)
      out.failures.push_back(s.error().message);
    return out;
  }
  for (const auto& phase : state.launched_phases)
    if (Status s = stop_phase(exec, state, phase); !s) errors.push_back(s.error().message);
  for (const auto& w : collect_logs(exec, state)) out.notes.push_back(w);
  if (state.container_started && exec.variant().container.runtime == config::RuntimeKind::kDocker) {
    std::vector<std::string> chowns;
    for (const auto& host : exec.hosts()) {
      auto owner = state.host_owner.find(host);
      chowns.push_back(owner == state.host_owner.end()
                           ? "true"
                           : "chown -R " + shell_quote(owner->second) + " " +
                                 shell_quote(exec.variant().node_repo_path()));
    }
    auto restored = exec.in_containers_each(chowns, seconds(120));
    if (!cluster::all_succeeded(restored)) errors.push_back("chown failed: " + cluster::describe_failures(restored));
  }
  // Without container_started, launch already removed what it had started (or never
  // reached the nodes); asking unreachable nodes again would only add noise.
  if (state.container_started)
    if (Status s = remove_containers(exec, {}, &state.container_removal_failed); !s) errors.push_back(s.error().message);
  if (Status s = release_workdir_locks(exec, state); !s) errors.push_back(s.error().message);
  if (!errors.empty()) out.failures.push_back(fmt::format("{}", fmt::join(errors, "; ")));
  return out;
}

}  // namespace aorta::job
