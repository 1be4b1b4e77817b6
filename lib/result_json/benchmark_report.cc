#include "result_json/benchmark_report.h"

#include "common/utf8.h"
#include "common/version.h"
#include "job/launch.h"
#include "result_json/diagnosis_json.h"
#include "redact/redact.h"

namespace aorta::result_json {

ordered_json benchmark_report(const job::RunState& state, const config::Variant& variant,
                              const config::Cluster& cluster, bool validation_passed) {
  ordered_json r;
  r["status"] = job::run_status_name(state.status);
  r["validation_passed"] = validation_passed;
  r["error_message"] = valid_utf8(redact::redact_text(state.error_message));
  ordered_json errors = ordered_json::object();
  for (const auto& e : state.collection_errors) errors[valid_utf8(e.host)] = valid_utf8(redact::redact_text(e.message));
  r["collection_errors"] = errors;
  r["duration_seconds"] = state.duration_seconds();
  int gpus = variant.ranks_per_node();
  r["cluster"] = {{"nodes", cluster.nodes.size()}, {"gpus_per_node", gpus},
                  {"total_gpus", static_cast<int>(cluster.nodes.size()) * gpus}};
  r["configuration"] = {{"nccl_channels", job::nccl_channels(variant)}, {"compute_channels", nullptr},
                        {"rccl_branch", valid_utf8(redact::redact_value("rccl_branch", variant.rccl.branch))}};
  if (state.result) {
    r["performance"] = performance_json(*state.result);
    r["per_rank_summary"] = per_rank_json(*state.result);
    r["diagnosis"] = diagnosis_json(*state.result);
  } else {
    r["performance"] = nullptr;
    r["per_rank_summary"] = ordered_json::array();
    r["diagnosis"] = nullptr;
  }
  r["parse"] = state.parse ? parse_json(*state.parse) : ordered_json(nullptr);
  ordered_json matches = ordered_json::array();  // dmesg lines: any bytes a driver printed
  for (const auto& line : state.kernel_log_matches) matches.push_back(valid_utf8(line));
  r["kernel_log_matches"] = matches;
  r["run_id"] = state.run_id;
  // Which build made this report, so results from different builds are never confused.
  r["tool"] = {{"name", "aorta_suite"}, {"version", version()}, {"commit", git_commit()}};
  return r;
}

}  // namespace aorta::result_json
