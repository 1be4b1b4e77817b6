#include "result_json/benchmark_report.h"

#include <ctime>

#include "common/utf8.h"
#include "common/version.h"
#include "job/launch.h"
#include "result_json/diagnosis_json.h"
#include "result_json/telemetry_json.h"
#include "redact/redact.h"

namespace aorta::result_json {
namespace {

ordered_json subject_json(const std::optional<metrics::GateSubject>& s) {
  if (!s) return nullptr;
  return {{"node", s->node ? ordered_json(valid_utf8(*s->node)) : ordered_json(nullptr)},
          {"rank", s->rank ? ordered_json(*s->rank) : ordered_json(nullptr)},
          {"gpu", s->gpu ? ordered_json(*s->gpu) : ordered_json(nullptr)},
          {"text", valid_utf8(s->text())}};
}

// A skipped gate that was not only recorded never got its verdict.
std::string gate_outcome(const job::SubTest& gate) {
  return gate.outcome == job::Outcome::kSkipped && !gate.record_only ? "not evaluated" : gate.verdict();
}

// "2026-12-05T13:10:21Z": when the run started, in UTC, so runs from machines in
// other time zones (or either side of a DST change) order as they happened.
std::string utc_timestamp(std::chrono::system_clock::time_point when) {
  const std::time_t t = std::chrono::system_clock::to_time_t(when);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

bool accelerator_run(const config::Variant& variant, const metrics::RunMetrics* result) {
  if (!variant.skip_rccl_build) return true;
  if (result)
    for (const auto& r : result->per_rank)
      if (r.parser == metrics::ParserPath::kGpuTimeline || r.parser == metrics::ParserPath::kTracelensExcel) return true;
  return false;
}

ordered_json gates_json(const std::vector<job::SubTest>& gates) {
  ordered_json list = ordered_json::array();
  for (const auto& g : gates) {
    list.push_back({{"key", valid_utf8(g.value)},
                    {"kind", g.gate ? ordered_json(metrics::kind_name(*g.gate)) : ordered_json(nullptr)},
                    {"actual", optional_number(g.actual)},
                    {"limit", optional_number(g.limit)},
                    {"unit", g.unit ? ordered_json(metrics::unit_name(*g.unit)) : ordered_json(nullptr)},
                    {"margin", optional_number(g.margin())},
                    {"outcome", gate_outcome(g)},
                    {"message", valid_utf8(redact::redact_text(g.message))},
                    {"subject", subject_json(g.subject)}});
  }
  return list;
}

ordered_json benchmark_report(const job::RunState& state, const config::Variant& variant,
                              const config::Cluster& cluster, bool validation_passed, const RunVerdict& verdict) {
  ordered_json r;
  r["status"] = job::run_status_name(state.status);
  r["validation_passed"] = validation_passed;
  const std::string& why = verdict.why_failed.empty() ? state.error_message : verdict.why_failed;
  r["error_message"] = valid_utf8(redact::redact_text(why));
  ordered_json errors = ordered_json::object();
  for (const auto& e : state.collection_errors) errors[valid_utf8(e.host)] = valid_utf8(redact::redact_text(e.message));
  r["collection_errors"] = errors;
  r["started_at"] = state.started_at ? ordered_json(utc_timestamp(*state.started_at)) : ordered_json(nullptr);
  r["duration_seconds"] = state.duration_seconds();
  int gpus = variant.ranks_per_node();
  r["cluster"] = {{"nodes", cluster.nodes.size()}, {"gpus_per_node", gpus},
                  {"total_gpus", static_cast<int>(cluster.nodes.size()) * gpus}};
  const bool accelerator = accelerator_run(variant, state.result ? &*state.result : nullptr);
  ordered_json& configuration = r["configuration"] = ordered_json::object();
  if (accelerator) configuration["nccl_channels"] = job::nccl_channels(variant);
  configuration["compute_channels"] = nullptr;
  if (accelerator) configuration["rccl_branch"] = valid_utf8(redact::redact_value("rccl_branch", variant.rccl.branch));
  if (state.result) {
    r["performance"] = performance_json(*state.result);
    r["per_rank_summary"] = per_rank_json(*state.result);
    r["diagnosis"] = diagnosis_json(*state.result);
    if (state.result->telemetry) r["telemetry"] = telemetry_json(*state.result->telemetry);  // absent: no node sampled
  } else {
    r["performance"] = nullptr;
    r["per_rank_summary"] = ordered_json::array();
    r["diagnosis"] = nullptr;
  }
  r["gates"] = gates_json(verdict.gates);
  r["parse"] = state.parse ? parse_json(*state.parse) : ordered_json(nullptr);
  ordered_json matches = ordered_json::array();  // dmesg lines: any bytes a driver printed
  for (const auto& line : state.kernel_log_matches) matches.push_back(valid_utf8(line));
  r["kernel_log_matches"] = matches;
  // Where the traces were read and where they are now: every copy here unless the
  // config archived fewer (then the kept copies, and how many stay on their nodes).
  ordered_json kept = nullptr;
  if (state.trace_archive) {
    kept = ordered_json::array();
    for (const auto& k : state.trace_archive->kept) kept.push_back(valid_utf8(redact::redact_text(k)));
  }
  r["traces"] = {{"analyzed_on", variant.analysis.where},
                 {"archive", variant.analysis.archive_traces},
                 {"kept_here", kept},
                 {"left_on_nodes", state.trace_archive ? state.trace_archive->on_nodes : 0}};
  r["run_id"] = state.run_id;
  // Which build made this report, so results from different builds are never confused.
  r["tool"] = {{"name", "aorta_suite"}, {"version", version()}, {"commit", git_commit()}};
  return r;
}

}  // namespace aorta::result_json
