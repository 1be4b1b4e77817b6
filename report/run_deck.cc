#include "report/run_deck.h"
#include "report/run_deck_recent.h"

#include <algorithm>
#include <cctype>
#include <ctime>

#include <fmt/format.h>

#include "common/utf8.h"
#include "metrics/metric_catalogue.h"
#include "metrics/threshold_catalogue.h"
#include "redact/redact.h"
#include "result_json/benchmark_report.h"
#include "report/run_deck_charts.h"
#include "report/run_deck_cvs.h"
#include "report/run_deck_diagnosis.h"
#include "report/run_figures.h"

namespace aorta::report {
namespace {

// A config value as a report may show it: valid UTF-8, secrets redacted (an image
// reference or model id can carry a token: registry.example/x?token=...).
std::string shown(const std::string& value) { return valid_utf8(redact::redact_text(value)); }

nlohmann::ordered_json number_or_null(std::optional<double> v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr); }

// How the numbers were made, by rank: the "Metrics algorithm" row beside CVS's
// "Metrics source" (cvs_metrics_source), which names only the parser.
std::string metrics_algorithm(const metrics::RunMetrics* r) {
  const std::string source = cvs_metrics_source(r);
  if (!r || source == "Aorta TraceLens Excel reports") return source;  // one path for every rank
  bool gpu = false, cpu = false, basic = false;
  for (const auto& rank : r->per_rank)
    (rank.parser == metrics::ParserPath::kGpuTimeline   ? gpu
     : rank.parser == metrics::ParserPath::kCpuTimeline ? cpu
                                                         : basic) = true;
  if (gpu + cpu + basic > 1) {
    std::string mixed;
    for (auto [used, name] : {std::pair{gpu, "GPU timeline"}, {cpu, "CPU timeline"}, {basic, "basic raw-trace scan"}})
      if (used) mixed += (mixed.empty() ? "" : ", ") + std::string(name);
    return mixed + " on raw traces, by rank";
  }
  if (cpu) return "CPU timeline (operators and collectives) on raw traces";
  return gpu ? "TraceLens-compatible GPU timeline on raw traces" : "Basic raw-trace scan";
}

std::string generated_at(const DeckInput& in) {
  if (!in.generated_at.empty()) return in.generated_at;
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", std::localtime(&now));
  return stamp;
}

nlohmann::ordered_json report_json(const DeckInput& in) {
  const RunRecord& run = *in.run;
  nlohmann::ordered_json tiers = nlohmann::ordered_json::array();
  for (const auto& spec : metrics::threshold_catalogue()) tiers.push_back(spec.tier);
  tiers.push_back("record");
  return {{"title", "Aorta Run Deck"},
          {"subtitle", fmt::format("Aorta · {} benchmark summary", run.suite == "aorta_single" ? "single" : "distributed")},
          {"footer", "aorta_suite · render-only · does not affect gates"},
          {"tier_order", tiers},
          {"headline_metric", "training.avg_iteration_time_ms"},
          {"lifecycle_labels", session_lifecycle_labels(in.lifecycle)}};
}

nlohmann::ordered_json lifecycle_json(const RunRecord& run) {
  nlohmann::ordered_json lifecycle = nlohmann::ordered_json::object();
  for (const StageResult* s : run.stage_tests())
    if (!s->label.empty() && s->outcome != job::Outcome::kSkipped) lifecycle[s->label] = s->seconds;
  return lifecycle;
}

// The stages the timeline leaves out (CVS's lifecycle has only the stages that ran),
// each with why: the deck's timeline lists them under its chart (issue 31, 9).
nlohmann::ordered_json lifecycle_skipped_json(const RunRecord& run) {
  nlohmann::ordered_json skipped = nlohmann::ordered_json::object();
  for (const StageResult* s : run.stage_tests())
    // A skipped stage with sub-tests still recorded them (enforce_thresholds: false): it ran.
    if (!s->label.empty() && s->outcome == job::Outcome::kSkipped && s->subtests.empty())
      skipped[s->label] = s->skip_reason;
  return skipped;
}

// One tier per catalogue key (reference §4.6.3), one verdict per configured (non-null)
// key, then the `record` tier. `specs` is CVS's shape of the tier's configured gate.
nlohmann::ordered_json gate_matrix_json(const DeckInput& in, const DeckFacts& facts, const nlohmann::ordered_json& specs) {
  nlohmann::ordered_json gates = nlohmann::ordered_json::object();
  for (const auto& spec : metrics::threshold_catalogue()) {
    const std::string metric = std::string("training.") + spec.metric;
    nlohmann::ordered_json g;
    g["metric"] = metric;
    g["threshold"] = spec.key;
    g["actual"] = number_or_null(in.result ? spec.value(*in.result) : std::nullopt);
    const config::Threshold* t = configured_threshold(*in.variant, spec.key);
    if (!t) {
      g["status"] = "na";
      g["spec"] = nullptr;
    } else {
      g["spec"] = {{"kind", kind_name(spec.kind)}, {"value", *t->value}};
      g["status"] = gate_status(facts, spec.key);
      if (facts.state == "enforced") g["reason"] = gate_message(facts, spec.key);
    }
    g["specs"] = specs.contains(metric) ? nlohmann::ordered_json{{metric, specs[metric]}} : nlohmann::ordered_json::object();
    gates[spec.tier] = g;
  }
  gates["record"] = record_tier_json();
  return gates;
}

// The card's line of one configured threshold: "PASS · 11.00 ms (limit ≤ 20 ms)".
// gate_status in capitals: PASS, FAIL, NOT EVALUATED, RECORD.
std::string threshold_card_text(const DeckInput& in, const DeckFacts& facts, const metrics::ThresholdSpec& spec,
                                 double limit) {
  std::optional<double> actual;
  if (in.result) actual = spec.value(*in.result);
  std::string status = gate_status(facts, spec.key);
  std::transform(status.begin(), status.end(), status.begin(), [](unsigned char c) { return std::toupper(c); });
  return fmt::format("{} · {} (limit {} {})", status, actual ? metrics::format_actual(spec, *actual) : "n/a",
                     spec.kind == metrics::ThresholdKind::kMax ? "≤" : "≥", metrics::format_limit(spec, limit));
}

// run_card_display: rows of (label, value, is a link).
nlohmann::ordered_json run_card_json(const DeckInput& in, const DeckFacts& facts) {
  const RunRecord& run = *in.run;
  nlohmann::ordered_json card = nlohmann::ordered_json::array();
  auto row = [&](const std::string& label, const std::string& value, bool link = false) {
    card.push_back({label, value, link});
  };
  row("Workload", in.variant->model_id.empty() ? "—" : shown(in.variant->model_id));
  row("Framework", "Aorta");
  row("Image", in.variant->container.image.empty() ? "—" : shown(in.variant->container.image));
  row("Nodes", std::to_string(in.nodes));
  row("GPUs/node", std::to_string(in.gpus_per_node));
  if (facts.accelerator) {
    row("NCCL channels", std::to_string(in.nccl_channels));
    row("RCCL branch", shown(in.variant->rccl.branch));
  }
  row("Metrics source", cvs_metrics_source(in.result));
  row("Metrics algorithm", metrics_algorithm(in.result));
  row("Thresholds", facts.state);
  for (const auto& t : in.variant->thresholds)
    if (const metrics::ThresholdSpec* spec = metrics::find_threshold(t.key); t.value && spec)
      row(t.key, threshold_card_text(in, facts, *spec, *t.value));
  bool all_passed = run.count(job::Outcome::kFailed) == 0;
  row("gtest stages", all_passed ? "all passed" : "failures — see the HTML report");
  row("HTML report", valid_utf8(in.pytest_html), true);
  row("Log", valid_utf8(in.log_file), true);
  row("aorta_suite", run.version + " (commit " + run.commit + ")");
  return card;
}

// File names come from the command line: bytes, not necessarily UTF-8. The key
// pytest_html_path is the original's; here it is the HTML report's path.
nlohmann::ordered_json provenance_json(const DeckInput& in) {
  const RunRecord& run = *in.run;
  return {{"pytest_html_path", valid_utf8(in.pytest_html)}, {"log_file_path", valid_utf8(in.log_file)},
          {"cluster_file", valid_utf8(in.cluster_file)}, {"config_file", valid_utf8(in.config_file)},
          {"run_id", run.run_id}, {"aorta_suite_version", run.version}, {"aorta_suite_commit", run.commit}};
}

nlohmann::ordered_json cells_json(const DeckInput& in, const DeckFacts& facts) {
  nlohmann::ordered_json cells = nlohmann::ordered_json::array();
  if (!in.result) return cells;
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
  // A metric without a value (the variance of a zero mean) is absent, as in CVS's cell.
  for (const metrics::MetricSpec* spec : metrics::metrics_in(metrics::kInDeck))
    if (auto v = metrics::deck_value(*spec, *in.result)) values["training." + metrics::deck_key(*spec)] = *v;
  nlohmann::ordered_json dimensions = {{"nodes", std::to_string(in.nodes)}, {"gpus_per_node", std::to_string(in.gpus_per_node)}};
  if (facts.accelerator) {
    dimensions["nccl_channels"] = std::to_string(in.nccl_channels);
    dimensions["rccl_branch"] = shown(in.variant->rccl.branch);
  }
  cells.push_back({{"id", in.variant->model_id.empty() ? "default" : shown(in.variant->model_id)},
                   {"dimensions", dimensions},
                   {"metrics", values}});
  return cells;
}

// The results table's metric columns: the run's size first, beside the dimensions,
// then the deck's other metrics in catalogue order.
std::vector<const metrics::MetricSpec*> table_columns() {
  std::vector<const metrics::MetricSpec*> columns = metrics::metrics_in(metrics::kInDeck);
  std::stable_partition(columns.begin(), columns.end(),
                        [](const metrics::MetricSpec* spec) { return spec->unit == metrics::MetricUnit::kCount; });
  return columns;
}

// Ours leaves out NCCL channels and RCCL branch on a CPU run and writes a missing value
// as null; CVS's (cvs_columns: the training_sweep dataset's) has every profile column
// and "—" for a value it lacks.
nlohmann::ordered_json results_table_json(const DeckInput& in, const DeckFacts& facts, bool cvs_columns = false) {
  const bool dimensions = facts.accelerator || cvs_columns;
  const nlohmann::ordered_json none = cvs_columns ? nlohmann::ordered_json("—") : nlohmann::ordered_json(nullptr);
  nlohmann::ordered_json table;
  table["headers"] = {"Model", "Nodes", "GPUs/node"};
  if (dimensions)
    for (const char* h : {"NCCL channels", "RCCL branch"}) table["headers"].push_back(h);
  for (const metrics::MetricSpec* spec : table_columns()) table["headers"].push_back(spec->deck_header);
  table["rows"] = nlohmann::ordered_json::array();
  if (in.result) {
    const std::string model = shown(in.variant->model_id);
    nlohmann::ordered_json r = {cvs_columns && model.empty() ? none : nlohmann::ordered_json(model), in.nodes, in.gpus_per_node};
    if (dimensions) {
      r.push_back(facts.accelerator ? nlohmann::ordered_json(in.nccl_channels) : none);
      r.push_back(facts.accelerator ? nlohmann::ordered_json(shown(in.variant->rccl.branch)) : none);
    }
    for (const metrics::MetricSpec* spec : table_columns()) {
      const auto value = metrics::deck_value(*spec, *in.result);
      r.push_back(value ? nlohmann::ordered_json(*value) : none);
    }
    table["rows"].push_back(r);
  }
  return table;
}

// Against a baseline run (--baseline): the same comparison `aorta_suite compare` prints.
nlohmann::ordered_json comparison_section(const DeckInput& in) {
  if (!in.baseline || !in.result) return nullptr;
  const metrics::RunFigures self = run_figures(*in.result, "this run");
  return comparison_json(metrics::compare_runs(*in.baseline, self, {}), *in.baseline, self);
}

// The verdicts the thresholds stage recorded, by threshold key; none when it did not run.
std::map<std::string, job::SubTest> recorded_verdicts(const DeckInput& in) {
  std::map<std::string, job::SubTest> verdicts;
  if (const StageResult* gate = threshold_stage(in))
    for (const auto& t : gate->subtests)
      if (t.kind == job::SubTestKind::kThreshold) verdicts.emplace(t.value, t);
  return verdicts;
}

}  // namespace

const config::Threshold* configured_threshold(const config::Variant& v, const std::string& key) {
  for (const auto& th : v.thresholds)
    if (th.key == key && th.value) return &th;
  return nullptr;
}

const StageResult* threshold_stage(const DeckInput& in) {
  const auto gates = [](const stages::StageSpec* spec) {
    return spec->subtests && spec->subtests->kind == job::SubTestKind::kThreshold;
  };
  const auto spec = std::find_if(in.lifecycle.begin(), in.lifecycle.end(), gates);
  if (spec == in.lifecycle.end()) return nullptr;
  for (const StageResult* s : in.run->stage_tests())
    if (s->name == (*spec)->test_name) return s;
  return nullptr;
}

std::string threshold_state(const DeckInput& in) {
  if (!in.variant->enforce_thresholds) return "record-only";
  const StageResult* gate = threshold_stage(in);
  bool ran = gate && gate->outcome != job::Outcome::kSkipped && in.result;
  return ran ? "enforced" : "not evaluated";
}

std::string overall_status(const DeckInput& in) {
  if (!in.result) return "na";
  if (threshold_state(in) != "enforced") return "record";
  for (const auto& [key, verdict] : recorded_verdicts(in))
    if (!verdict.passed()) return "fail";
  return "pass";
}

nlohmann::ordered_json run_deck_json(const DeckInput& in) {
  const DeckFacts facts{threshold_state(in), recorded_verdicts(in), result_json::accelerator_run(*in.variant, in.result)};
  nlohmann::ordered_json deck;
  deck["schema_version"] = 1;
  deck["suite_id"] = "aorta";
  deck["generated_at"] = generated_at(in);
  deck["cvs_version"] = nullptr;  // CVS's own version: this deck was not written by CVS
  deck["overall_status"] = overall_status(in);
  deck["threshold_state"] = facts.state;
  deck["report"] = report_json(in);
  deck["lifecycle"] = lifecycle_json(*in.run);
  deck["lifecycle_skipped"] = lifecycle_skipped_json(*in.run);
  deck["threshold_specs"] = threshold_specs_json(in, facts);
  deck["gate_matrix"] = gate_matrix_json(in, facts, deck["threshold_specs"]);
  deck["threshold_verdicts"] = threshold_verdicts_json(in, facts);
  deck["run_card_display"] = run_card_json(in, facts);
  deck["run_card_notes"] = nlohmann::ordered_json::array();
  deck["accelerator_fields"] = facts.accelerator;
  deck["provenance"] = provenance_json(in);
  deck["cells"] = cells_json(in, facts);
  deck["results_table"] = results_table_json(in, facts);
  deck["metric_charts"] = metric_charts_json(in);
  deck["deck_results"] = deck_results_json(deck["cells"], deck["metric_charts"]["series"]);
  deck["diagnosis"] = deck_diagnosis_json(in.result);
  deck["comparison"] = comparison_section(in);
  if (!in.history_root.empty()) deck["recent_runs"] = recent_runs_json(in.history_root, in.own_report);
  deck["panels"] = panels_json(deck);
  deck["datasets"] = {{"training_sweep", training_sweep_json(deck, facts, results_table_json(in, facts, true))}};
  deck["deck_profile"] = deck_profile_json(deck["report"]);
  deck["summary"] = summary_json(deck, *in.run);
  return deck;
}

}  // namespace aorta::report
