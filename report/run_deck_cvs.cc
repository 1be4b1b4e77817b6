#include "report/run_deck_cvs.h"

#include <algorithm>
#include <string_view>
#include <utility>

#include "metrics/metric_catalogue.h"

namespace aorta::report {
namespace {

constexpr std::string_view kPrefix = "training.";

// The metrics a CVS cell card highlights (the profile's cell_highlights), in its order
// and with its labels: catalogue keys, whose rows give the deck's key and the unit.
constexpr std::pair<const char*, const char*> kHighlights[] = {{"avg_iteration_time_ms", "Avg iteration"},
                                                               {"avg_compute_ratio", "Compute ratio"},
                                                               {"avg_overlap_ratio", "Overlap ratio"},
                                                               {"time_variance_ratio", "Time variance"},
                                                               {"avg_comm_time_us", "Comm time"}};

// A highlight's unit as CVS writes it: the deck's times are in ms, a fraction is a "ratio".
const char* cvs_unit(const metrics::MetricSpec& spec) {
  if (spec.unit == metrics::MetricUnit::kUs) return metrics::unit_name(metrics::MetricUnit::kMs);
  if (spec.unit == metrics::MetricUnit::kFraction) return metrics::unit_name(metrics::MetricUnit::kRatio);
  return metrics::unit_name(spec.unit);
}

// CVS's tier status (cell_build.tier_status): record when the gate did not run or for
// the record tier, na without a configured spec, else the specs' verdicts.
std::string sweep_tier_status(const std::string& tier, const nlohmann::ordered_json& gate, bool gate_ran) {
  if (!gate_ran || tier == "record") return "record";
  if (gate["specs"].empty()) return "na";
  for (const auto& [metric, spec] : gate["specs"].items())
    if (spec.value("verdict", "") == "fail") return "fail";
  return "pass";
}

// CVS's four dimension fields from our cell's, all strings: NCCL channels and the RCCL
// branch are "" where our cell leaves them out (a CPU run).
nlohmann::ordered_json cvs_dimensions(const nlohmann::ordered_json& ours) {
  return {{"nodes", ours["nodes"]},
          {"gpus_per_node", ours["gpus_per_node"]},
          {"nccl_channels", ours.value("nccl_channels", "")},
          {"rccl_branch", ours.value("rccl_branch", "")}};
}

// The six per-rank series as CVS names them: group "Per rank", our group as the name,
// our name as the node ("Time", node "iteration").
nlohmann::ordered_json cvs_series(const nlohmann::ordered_json& series) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& s : series)
    out.push_back({{"group", "Per rank"}, {"name", s["group"]}, {"unit", s["unit"]}, {"node", s["name"]},
                   {"x_label", s["x_label"]}, {"points", s["points"]}});
  return out;
}

}  // namespace

std::string gate_status(const DeckFacts& facts, const std::string& key) {
  if (facts.state == "record-only") return "record";
  const auto verdict = facts.verdicts.find(key);
  if (facts.state != "enforced" || verdict == facts.verdicts.end()) return "not evaluated";
  return verdict->second.passed() ? "pass" : "fail";
}

std::string gate_message(const DeckFacts& facts, const std::string& key) {
  const auto verdict = facts.verdicts.find(key);
  return facts.state == "enforced" && verdict != facts.verdicts.end() ? verdict->second.message : "";
}

std::string cvs_metrics_source(const metrics::RunMetrics* result) {
  if (!result) return "—";
  // The Excel source is all or nothing: parse_results uses it for every rank or none.
  for (const auto& rank : result->per_rank)
    if (rank.parser == metrics::ParserPath::kTracelensExcel) return "Aorta TraceLens Excel reports";
  // CVS's "TraceLens on raw traces" would claim a TraceLens that never ran: our own
  // parser read the raw traces (the "Metrics algorithm" row says which path each took).
  // Every rank on the basic scan is CVS's own words for it.
  if (!result->per_rank.empty() && std::all_of(result->per_rank.begin(), result->per_rank.end(), [](const auto& r) {
        return r.parser == metrics::ParserPath::kBasicScan;
      }))
    return "Basic raw-trace scan";
  return "aorta_suite raw-trace parser (TraceLens not run)";
}

nlohmann::ordered_json session_lifecycle_labels(const std::vector<const stages::StageSpec*>& stages) {
  nlohmann::ordered_json labels = nlohmann::ordered_json::array();
  for (const stages::StageSpec* spec : stages) labels.push_back(spec->label);
  return labels;
}

nlohmann::ordered_json threshold_specs_json(const DeckInput& in, const DeckFacts& facts) {
  nlohmann::ordered_json specs = nlohmann::ordered_json::object();
  for (const auto& spec : metrics::threshold_catalogue()) {
    const config::Threshold* t = configured_threshold(*in.variant, spec.key);
    if (!t) continue;
    nlohmann::ordered_json s = {{"kind", kind_name(spec.kind)}, {"value", *t->value}};
    if (facts.state == "enforced") {
      s["verdict"] = gate_status(facts, spec.key);
      s["reason"] = gate_message(facts, spec.key);
    }
    specs[std::string(kPrefix) + spec.metric] = s;
  }
  return specs;
}

nlohmann::ordered_json record_tier_json() {
  nlohmann::ordered_json recorded = nlohmann::ordered_json::array();
  for (const metrics::MetricSpec* spec : metrics::metrics_in(metrics::kInDeck))
    if (!spec->gate) recorded.push_back(std::string(kPrefix) + metrics::deck_key(*spec));
  // The other tiers' keys too, so a reader walking gate_matrix finds each in every tier.
  return {{"metric", nullptr}, {"threshold", nullptr}, {"actual", nullptr},   {"status", "record"},
          {"spec", nullptr},   {"specs", nlohmann::ordered_json::object()},           {"metrics", recorded}};
}

nlohmann::ordered_json threshold_verdicts_json(const DeckInput& in, const DeckFacts& facts) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& spec : metrics::threshold_catalogue()) {
    const config::Threshold* t = configured_threshold(*in.variant, spec.key);
    if (!t) continue;
    std::optional<double> actual = in.result ? spec.value(*in.result) : std::nullopt;
    rows.push_back({{"threshold", spec.key},
                    {"metric", spec.metric},
                    {"kind", kind_name(spec.kind)},
                    {"limit", *t->value},
                    {"actual", actual ? nlohmann::ordered_json(*actual) : nlohmann::ordered_json(nullptr)},
                    {"status", gate_status(facts, spec.key)},
                    {"message", gate_message(facts, spec.key)}});
  }
  return rows;
}

nlohmann::ordered_json deck_results_json(const nlohmann::ordered_json& cells, const nlohmann::ordered_json& series) {
  nlohmann::ordered_json results = nlohmann::ordered_json::object();
  if (cells.empty()) return results;
  const nlohmann::ordered_json& ours = cells[0];
  nlohmann::ordered_json cell = nlohmann::ordered_json::object();
  // Our cell leaves out a metric without a value (the variance of a zero mean), as CVS's does.
  for (const auto& [key, value] : ours["metrics"].items()) {
    const std::string name = key.substr(kPrefix.size());
    // A count is an integer. array(), not braces: clang reads `{json}` as a copy, g++ as a list.
    const nlohmann::ordered_json sample = name == "ranks" ? nlohmann::ordered_json(value.get<long long>()) : value;
    cell[name] = nlohmann::ordered_json::array({sample});
  }
  cell["_dimensions"] = cvs_dimensions(ours["dimensions"]);
  if (!series.empty())  // two ranks or more
    cell["_metric_charts"] = {{"metrics", nlohmann::ordered_json::array()}, {"heatmaps", nlohmann::ordered_json::array()},
                              {"series", cvs_series(series)}};
  results[ours["id"].get<std::string>()] = cell;
  return results;
}

nlohmann::ordered_json training_sweep_json(const nlohmann::ordered_json& deck, const DeckFacts& facts, nlohmann::ordered_json results_table) {
  const bool gate_ran = facts.state == "enforced";
  nlohmann::ordered_json cells = nlohmann::ordered_json::array(), rows = nlohmann::ordered_json::array();
  if (!deck["cells"].empty()) {
    const nlohmann::ordered_json& ours = deck["cells"][0];
    const nlohmann::ordered_json& specs = deck["threshold_specs"];
    nlohmann::ordered_json highlights = nlohmann::ordered_json::array();
    for (const auto& [key, label] : kHighlights) {
      const metrics::MetricSpec& row = *metrics::find_metric(key);
      const std::string metric = std::string(kPrefix) + metrics::deck_key(row);
      const nlohmann::ordered_json spec = specs.contains(metric) ? specs[metric] : nlohmann::ordered_json(nullptr);
      highlights.push_back({{"label", label},
                            {"metric", metric},
                            {"actual", ours["metrics"].value(metric, nlohmann::ordered_json(nullptr))},
                            {"unit", cvs_unit(row)},
                            {"spec", spec},
                            {"status", gate_ran && !spec.is_null() ? spec["verdict"] : nlohmann::ordered_json("record")}});
    }
    nlohmann::ordered_json tiers = nlohmann::ordered_json::object();
    for (const auto& tier : deck["report"]["tier_order"])
      tiers[tier.get<std::string>()] = sweep_tier_status(tier, deck["gate_matrix"][tier.get<std::string>()], gate_ran);
    nlohmann::ordered_json cell = {{"cell_id", ours["id"]}, {"label", ours["id"]}, {"model", results_table["rows"][0][0]},
                         {"host", "cluster"}};
    cell.update(cvs_dimensions(ours["dimensions"]));
    cell["metrics"] = highlights;
    cell["tiers"] = tiers;
    cell["actuals"] = ours["metrics"];
    cells.push_back(cell);
    rows.push_back({{"cell_id", ours["id"]}, {"label", ours["id"]}, {"tiers", tiers}});
  }
  const nlohmann::ordered_json& charts = deck["deck_results"].empty() ? nlohmann::ordered_json() : deck["deck_results"].front();
  return {{"cells", cells},
          {"gate_matrix", rows},
          {"metric_charts",
           {{"series", charts.contains("_metric_charts") ? charts["_metric_charts"]["series"] : nlohmann::ordered_json::array()}}},
          {"results_table", std::move(results_table)},
          {"overall_status", deck["overall_status"]},
          {"metric_tier_order", deck["report"]["tier_order"]},
          {"headline_metric", deck["report"]["headline_metric"]},
          {"session_lifecycle_labels", deck["report"]["lifecycle_labels"]},
          {"enforce", gate_ran}};
}

nlohmann::ordered_json panels_json(const nlohmann::ordered_json& deck) {
  nlohmann::ordered_json panels = nlohmann::ordered_json::array();
  const auto panel = [&](const char* id, const char* title) { panels.push_back({{"id", id}, {"title", title}}); };
  // The page's order (run_deck_html.cc): the gates and the Diagnosis first.
  panel("gates", "Threshold gates");
  if (!deck["diagnosis"].is_null()) panel("diagnosis-section", "Diagnosis");
  panel("run-card", "Run card");
  panel("lifecycle", "Lifecycle timeline");
  panel("result", "Benchmark result");
  const auto& charts = deck["metric_charts"];
  if (!charts["charts"].empty()) panel("per-rank", "Per-rank breakdown");
  if (!charts["step_heatmap"].is_null() || !charts["step_note"].is_null()) panel("per-step", "Per-step time");
  if (!deck["comparison"].is_null()) panel("comparison", "Against the baseline");
  panel("results", "Full results");
  return panels;
}

nlohmann::ordered_json summary_json(const nlohmann::ordered_json& deck, const RunRecord& run) {
  const std::string headline = deck["report"]["headline_metric"];
  nlohmann::ordered_json value = nullptr;
  if (!deck["cells"].empty()) value = deck["cells"][0]["metrics"].value(headline, nlohmann::ordered_json(nullptr));
  nlohmann::ordered_json tiers = nlohmann::ordered_json::object();
  for (const auto& [tier, gate] : deck["gate_matrix"].items()) {
    const std::string status = gate["status"];
    tiers[status] = tiers.value(status, 0) + 1;
  }
  return {{"overall_status", deck["overall_status"]},
          {"thresholds", deck["threshold_state"]},
          {"headline", {{"metric", headline}, {"value", value}, {"unit", "ms"}}},
          {"tiers", tiers},
          {"stages",
           {{"passed", run.stage_count(job::Outcome::kPassed)},
            {"failed", run.stage_count(job::Outcome::kFailed)},
            {"skipped", run.stage_count(job::Outcome::kSkipped)}}}};
}

nlohmann::ordered_json deck_profile_json(const nlohmann::ordered_json& report) {
  return {{"profile_id", "aorta_rundeck"},
          {"suite_id", "aorta"},
          {"report_basename", "aorta_run_deck"},
          {"title", report["title"]},
          {"subtitle", report["subtitle"]},
          {"footer", report["footer"]},
          {"dataset_builder", "training_sweep"},
          {"sources", {{"results", "cvs_results_dict"}, {"variant", "aorta_deck_variant"}, {"lifecycle", "lifecycle"}}}};
}

}  // namespace aorta::report
