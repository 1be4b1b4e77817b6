// test_parse_results: the run's metrics from the collected traces (or, on one node,
// from TraceLens's Excel reports when the analysis brought some home), aggregated,
// with every expected rank accounted for.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "tracelens/excel_reports.h"
#include "stages/node_analysis.h"
#include "stages/stage.h"
#include "metrics/telemetry_findings.h"
#include "telemetry/summary.h"

namespace aorta::stages {
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

// Each rank's node: the node whose folder of the collection holds its trace (none on
// shared storage, where trace_folders is empty).
void name_nodes(std::vector<metrics::RankMetrics>& ranks, const std::map<std::filesystem::path, std::string>& folders) {
  for (auto& r : ranks) {
    const std::filesystem::path source = std::filesystem::path(r.source).lexically_normal();
    for (const auto& [folder, host] : folders) {
      const std::filesystem::path inside = source.lexically_relative(folder.lexically_normal());
      if (!inside.empty() && *inside.begin() != "..") {
        r.node = host;
        break;
      }
    }
  }
}

// The traces' per-rank figures: read here, or on their nodes (node_analysis.h).
metrics::TraceSet read_traces(StageContext& ctx, const std::filesystem::path& dir,
                              const metrics::AnalyzeOptions& options, std::vector<std::string>& log) {
  if (ctx.exec.variant().analysis.where == "nodes") return analyze_on_nodes(ctx, dir, log);
  return metrics::analyze_traces(dir, options);
}

// state.parse from the Excel reports or the raw traces; false (with the failure in
// out) when there is nothing to parse.
bool parse_source(StageContext& ctx, StageResult& out) {
  auto& state = ctx.state;
  auto traces = state.artifacts.find("torch_traces");
  state.parse.reset();
  const bool have_traces = traces != state.artifacts.end() && std::filesystem::is_directory(traces->second);
  metrics::AnalyzeOptions options;  // one trace per core at once
  options.progress = ctx.log;
  if (auto excel = excel_reports_source(ctx)) {
    for (const auto& w : excel->warnings) out.log.push_back(w);
    for (const auto& e : excel->errors) out.log.push_back("TraceLens report error: " + e);
    if (!excel->ranks.empty()) {
      out.log.push_back(fmt::format("Metrics from the TraceLens Excel reports: {} of {} report(s) in {}",
                                    excel->files_parsed, excel->files_found, state.artifacts["tracelens_analysis"].string()));
      if (have_traces) join_trace_ranks(*excel, read_traces(ctx, traces->second, options, out.log), out.log);
      state.parse = std::move(*excel);
    }
  }
  if (state.parse) return true;
  if (!have_traces) {
    out.failures.push_back("No torch_traces artifact; cannot parse benchmark metrics");
    return false;
  }
  state.parse = read_traces(ctx, traces->second, options, out.log);
  for (const auto& w : state.parse->warnings) out.log.push_back(w);
  for (const auto& e : state.parse->errors) out.log.push_back("trace error: " + e);
  return true;
}

// The GPUs' telemetry the collection brought home (<run folder>/telemetry/node-<i>.log),
// when any node sampled; a damaged file is named and the rest used.
void read_telemetry(job::RunState& state, std::vector<std::string>& log) {
  state.result->telemetry = telemetry::read_telemetry_folder(state.output_root / "telemetry");
  if (!state.result->telemetry) return;
  metrics::join_telemetry(*state.result);  // each finding's GPU evidence; GPUs out of line named
  const auto& t = *state.result->telemetry;
  // A run whose nodes had no tool said so once when the sampler started: nothing more here.
  if (!t.gpus.empty()) log.push_back(fmt::format("GPU telemetry: {} node(s), {} GPU(s)", t.nodes.size(), t.gpus.size()));
  for (const auto& node : t.nodes)
    if (!node.errors.empty())
      log.push_back(fmt::format("GPU telemetry of {}: {} error(s), the first: {}", node.host, node.errors.size(),
                                node.errors.front()));
}

StageResult parse_traces(StageContext& ctx) {
  StageResult out;
  auto& state = ctx.state;
  if (state.status != job::RunStatus::kCompleted && state.status != job::RunStatus::kPending)
    out.log.push_back("Run did not succeed: " + state.error_message);
  if (!parse_source(ctx, out)) return out;
  name_nodes(state.parse->ranks, state.trace_folders);
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
  read_telemetry(state, out.log);
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

// With analysis.archive_traces outliers or none, the traces the run keeps are known
// once it is parsed (node_analysis.h).
StageResult parse_results(StageContext& ctx) {
  StageResult out = parse_traces(ctx);
  archive_chosen_traces(ctx, out.log);
  return out;
}

// Parse the survivors.
bool traces_collected(const job::RunState& s) { return s.artifacts.count("torch_traces") > 0; }

}  // namespace

extern const StageSpec kParseResults = {
    .test_name = "test_parse_results",
    .label = "parse",
    .body = parse_results,
    .runs_after_failure = traces_collected,
};

}  // namespace aorta::stages
