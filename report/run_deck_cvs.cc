#include "report/run_deck_cvs.h"

#include <set>

#include "common/utf8.h"
#include "metrics/metric_catalogue.h"
#include "metrics/threshold_catalogue.h"
#include "report/redact.h"

namespace aorta::report {
namespace {

const char* kind_name(metrics::ThresholdKind kind) { return kind == metrics::ThresholdKind::kMax ? "max" : "min"; }

// A count is an integer in CVS's cell (`ranks: [2]`), every other metric a number.
ordered_json cell_value(const metrics::MetricSpec& spec, double value) {
  if (spec.unit == metrics::MetricUnit::kCount) return static_cast<long long>(value);
  return value;
}

}  // namespace

std::string cvs_metrics_source(const metrics::RunMetrics* result) {
  if (!result) return "—";
  bool timeline = false;
  for (const auto& rank : result->per_rank) {
    // The Excel source is all or nothing: parse_results uses it for every rank or none.
    if (rank.parser == metrics::ParserPath::kTracelensExcel) return "Aorta TraceLens Excel reports";
    // Our raw-trace parser is CVS's TraceLens path: a timeline per rank, the basic
    // scan where a rank has none.
    if (rank.parser == metrics::ParserPath::kGpuTimeline || rank.parser == metrics::ParserPath::kCpuTimeline)
      timeline = true;
  }
  return timeline ? "TraceLens on raw traces (basic-scan fallback possible per rank)" : "Basic raw-trace scan";
}

ordered_json threshold_specs_json(const DeckInput& in, const DeckFacts& facts) {
  ordered_json specs = ordered_json::object();
  for (const auto& spec : metrics::threshold_catalogue()) {
    const config::Threshold* t = configured_threshold(*in.variant, spec.key);
    if (!t) continue;
    ordered_json s = {{"kind", kind_name(spec.kind)}, {"value", *t->value}};
    if (facts.state == "enforced") {
      const auto& v = facts.verdicts.at(spec.key);
      s["verdict"] = v.passed ? "pass" : "fail";
      s["reason"] = v.message;
    }
    specs[std::string("training.") + spec.metric] = s;
  }
  return specs;
}

ordered_json record_tier_json() {
  std::set<std::string> gated;
  for (const auto& spec : metrics::threshold_catalogue()) gated.insert(spec.metric);
  ordered_json recorded = ordered_json::array();
  for (const metrics::MetricSpec* spec : metrics::metrics_in(metrics::kInDeck))
    if (!gated.count(metrics::deck_key(*spec))) recorded.push_back("training." + metrics::deck_key(*spec));
  return {{"status", "record"}, {"metrics", recorded}, {"specs", ordered_json::object()}};
}

ordered_json threshold_verdicts_json(const DeckInput& in, const DeckFacts& facts) {
  ordered_json rows = ordered_json::array();
  for (const auto& spec : metrics::threshold_catalogue()) {
    const config::Threshold* t = configured_threshold(*in.variant, spec.key);
    if (!t) continue;
    std::optional<double> actual = in.result ? spec.value(*in.result) : std::nullopt;
    std::string status = facts.state == "record-only" ? "record" : "not evaluated";
    std::string message;
    if (facts.state == "enforced") {
      const auto& v = facts.verdicts.at(spec.key);
      status = v.passed ? "pass" : "fail";
      message = v.message;
    }
    rows.push_back({{"threshold", spec.key},
                    {"metric", std::string("training.") + spec.metric},
                    {"kind", kind_name(spec.kind)},
                    {"limit", *t->value},
                    {"actual", actual ? ordered_json(*actual) : ordered_json(nullptr)},
                    {"status", status},
                    {"message", message}});
  }
  return rows;
}

ordered_json deck_results_json(const DeckInput& in, const DeckFacts& facts, const ordered_json& series) {
  ordered_json results = ordered_json::object();
  if (!in.result) return results;
  ordered_json cell = ordered_json::object();
  // A metric without a value (the variance of a zero mean) is absent, as CVS writes it.
  for (const metrics::MetricSpec* spec : metrics::metrics_in(metrics::kInDeck))
    if (auto v = metrics::deck_value(*spec, *in.result)) cell[metrics::deck_key(*spec)] = {cell_value(*spec, *v)};
  const auto shown = [](const std::string& value) { return valid_utf8(redact_text(value)); };
  cell["_dimensions"] = {{"nodes", std::to_string(in.nodes)},
                         {"gpus_per_node", std::to_string(in.gpus_per_node)},
                         {"nccl_channels", facts.accelerator ? std::to_string(in.nccl_channels) : ""},
                         {"rccl_branch", facts.accelerator ? shown(in.variant->rccl.branch) : ""}};
  if (in.result->per_rank.size() >= 2)
    cell["_metric_charts"] = {{"metrics", ordered_json::array()}, {"heatmaps", ordered_json::array()}, {"series", series}};
  results[in.variant->model_id.empty() ? "default" : shown(in.variant->model_id)] = cell;
  return results;
}

ordered_json panels_json(const ordered_json& deck) {
  ordered_json panels = ordered_json::array();
  const auto panel = [&](const char* id, const char* title) { panels.push_back({{"id", id}, {"title", title}}); };
  panel("run-card", "Run card");
  panel("lifecycle", "Lifecycle timeline");
  panel("gates", "Threshold gates");
  panel("result", "Benchmark result");
  const auto& charts = deck["metric_charts"];
  if (!charts["charts"].empty()) panel("per-rank", "Per-rank breakdown");
  if (!charts["step_charts"].empty() || !charts["step_note"].is_null()) panel("per-step", "Per-step time");
  if (!deck["diagnosis"].is_null()) panel("diagnosis-section", "Diagnosis");
  if (!deck["comparison"].is_null()) panel("comparison", "Against the baseline");
  panel("results", "Full results");
  return panels;
}

ordered_json summary_json(const ordered_json& deck, const RunRecord& run) {
  const std::string headline = deck["report"]["headline_metric"];
  ordered_json value = nullptr;
  if (!deck["cells"].empty() && deck["cells"][0]["metrics"].contains(headline))
    value = deck["cells"][0]["metrics"][headline];
  ordered_json tiers = ordered_json::object();
  for (const auto& [tier, gate] : deck["gate_matrix"].items()) {
    const std::string status = gate["status"];
    tiers[status] = tiers.value(status, 0) + 1;
  }
  ordered_json stages = {{"passed", 0}, {"failed", 0}, {"skipped", 0}};
  for (const auto& s : run.stages) {
    if (s.is_subtest()) continue;
    const char* outcome = s.outcome == job::Outcome::kPassed    ? "passed"
                          : s.outcome == job::Outcome::kSkipped ? "skipped"
                                                                : "failed";
    stages[outcome] = stages[outcome].get<int>() + 1;
  }
  return {{"overall_status", deck["overall_status"]},
          {"thresholds", deck["threshold_state"]},
          {"headline", {{"metric", headline}, {"value", value}, {"unit", "ms"}}},
          {"tiers", tiers},
          {"stages", stages}};
}

ordered_json deck_profile_json(const ordered_json& report) {
  return {{"profile_id", "aorta_rundeck"},
          {"suite_id", "aorta"},
          {"report_basename", "aorta_run_deck"},
          {"title", report["title"]},
          {"subtitle", report["subtitle"]},
          {"footer", report["footer"]},
          {"dataset_builder", "training_sweep"},
          {"sources", {"cvs_results_dict", "aorta_deck_variant", "lifecycle"}}};
}

ordered_json training_sweep_json(const ordered_json& deck) {
  ordered_json sweep = ordered_json::object();
  for (const char* key : {"deck_results", "cells", "metric_charts", "gate_matrix", "threshold_specs",
                          "threshold_verdicts", "results_table", "overall_status"})
    sweep[key] = deck[key];
  return sweep;
}

}  // namespace aorta::report
