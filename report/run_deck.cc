#include "report/run_deck.h"

#include <algorithm>
#include <ctime>

#include <fmt/format.h>

#include "common/utf8.h"
#include "common/version.h"
#include "metrics/threshold_catalogue.h"
#include "report/redact.h"
#include "report/report_writer.h"

namespace aorta::report {
namespace {

// A config value as a report may show it: valid UTF-8, secrets redacted (an image
// reference or model id can carry a token: registry.example/x?token=...).
std::string shown(const std::string& value) { return valid_utf8(redact_text(value)); }

const StageResult* stage(const RunRecord& run, const std::string& name) {
  for (const auto& s : run.stages)
    if (s.name == name) return &s;
  return nullptr;
}

std::optional<double> metric(const metrics::RunMetrics* r, const std::string& key) {
  if (!r) return std::nullopt;
  if (key == "avg_iteration_time_ms") return r->avg_iteration_time_ms;
  if (key == "std_iteration_time_ms") return r->std_iteration_time_us / 1000;
  if (key == "min_iteration_time_ms") return r->min_iteration_time_us / 1000;
  if (key == "max_iteration_time_ms") return r->max_iteration_time_us / 1000;
  if (key == "avg_compute_time_ms") return r->avg_compute_time_us / 1000;
  if (key == "avg_comm_time_ms") return r->avg_comm_time_us / 1000;
  if (key == "avg_compute_ratio") return r->avg_compute_ratio;
  if (key == "avg_comm_ratio") return r->avg_comm_ratio;
  if (key == "avg_overlap_ratio") return r->avg_overlap_ratio;
  if (key == "time_variance_ratio") return r->time_variance_ratio;
  if (key == "ranks") return static_cast<double>(r->per_rank.size());
  return std::nullopt;
}

const std::vector<std::string>& metric_keys() {
  static const std::vector<std::string> kKeys = {
      "avg_iteration_time_ms", "std_iteration_time_ms", "min_iteration_time_ms", "max_iteration_time_ms",
      "time_variance_ratio",   "avg_compute_time_ms",   "avg_comm_time_ms",      "avg_compute_ratio",
      "avg_comm_ratio",        "avg_overlap_ratio",     "ranks"};
  return kKeys;
}

ordered_json number_or_null(std::optional<double> v) { return v ? ordered_json(*v) : ordered_json(nullptr); }

std::string metrics_source(const metrics::RunMetrics* r) {
  if (!r) return "—";
  bool timeline = false, basic = false;
  for (const auto& rank : r->per_rank) (rank.parser == metrics::ParserPath::kGpuTimeline ? timeline : basic) = true;
  if (timeline && basic) return "GPU timeline on raw traces, basic raw-trace scan for some ranks";
  return timeline ? "TraceLens-compatible GPU timeline on raw traces" : "Basic raw-trace scan";
}

}  // namespace

std::string threshold_state(const DeckInput& in) {
  if (!in.variant->enforce_thresholds) return "record-only";
  const StageResult* gate = stage(*in.run, "test_validate_thresholds");
  bool ran = gate && gate->outcome != job::Outcome::kSkipped && in.result;
  return ran ? "enforced" : "not evaluated";
}

std::string overall_status(const DeckInput& in) {
  if (!in.result) return "na";
  if (threshold_state(in) != "enforced") return "record";
  for (const auto& check : metrics::check_thresholds(*in.result, in.variant->thresholds))
    if (!check.passed) return "fail";
  return "pass";
}

ordered_json run_deck_json(const DeckInput& in) {
  const RunRecord& run = *in.run;
  const std::string state = threshold_state(in);
  const std::string overall = overall_status(in);
  ordered_json deck;
  deck["schema_version"] = 1;
  deck["suite_id"] = "aorta";
  std::string generated_at = in.generated_at;
  if (generated_at.empty()) {
    std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", std::localtime(&now));
    generated_at = stamp;
  }
  deck["generated_at"] = generated_at;
  deck["overall_status"] = overall;
  deck["report"] = {{"title", "Aorta Run Deck"},
                    {"subtitle", fmt::format("Aorta · {} benchmark summary",
                                             run.suite == "aorta_single" ? "single" : "distributed")},
                    {"footer", "aorta_suite · render-only · does not affect gates"},
                    {"headline_metric", "training.avg_iteration_time_ms"}};
  ordered_json lifecycle = ordered_json::object();
  for (const auto& s : run.stages)
    if (!s.label.empty() && !s.is_subtest() && s.outcome != job::Outcome::kSkipped) lifecycle[s.label] = s.seconds;
  deck["lifecycle"] = lifecycle;

  // Thresholds: one verdict per configured (non-null) key, from the same gate the
  // threshold stage ran.
  std::map<std::string, metrics::ThresholdCheck> verdicts;
  if (in.result)
    for (const auto& c : metrics::check_thresholds(*in.result, in.variant->thresholds)) verdicts[c.key] = c;
  ordered_json gates = ordered_json::object();
  // One tier per catalogue key (reference §4.6.3).
  for (const auto& spec : metrics::threshold_catalogue()) {
    ordered_json g;
    g["metric"] = std::string("training.") + spec.metric;
    g["threshold"] = spec.key;
    g["actual"] = number_or_null(in.result ? spec.value(*in.result) : std::nullopt);
    const config::Threshold* t = nullptr;
    for (const auto& th : in.variant->thresholds)
      if (th.key == spec.key && th.value) t = &th;
    if (!t) {
      g["status"] = "na";
      g["spec"] = nullptr;
    } else {
      g["spec"] = {{"kind", spec.kind == metrics::ThresholdKind::kMax ? "max" : "min"}, {"value", *t->value}};
      if (state == "enforced") {
        const auto& v = verdicts.at(spec.key);
        g["status"] = !v.passed ? "fail" : v.actual ? "pass" : "na";
        g["reason"] = v.message;
      } else {
        g["status"] = state == "record-only" ? "record" : "not evaluated";
      }
    }
    gates[spec.tier] = g;
  }
  deck["gate_matrix"] = gates;

  ordered_json card = ordered_json::array();
  auto row = [&](const std::string& label, const std::string& value, bool link = false) {
    card.push_back({label, value, link});
  };
  row("Workload", in.variant->model_id.empty() ? "—" : shown(in.variant->model_id));
  row("Framework", "Aorta");
  row("Image", in.variant->container.image.empty() ? "—" : shown(in.variant->container.image));
  row("Nodes", std::to_string(in.nodes));
  row("GPUs/node", std::to_string(in.gpus_per_node));
  row("NCCL channels", std::to_string(in.nccl_channels));
  row("RCCL branch", shown(in.variant->rccl.branch));
  row("Metrics source", metrics_source(in.result));
  row("Thresholds", state);
  for (const auto& t : in.variant->thresholds) {
    const metrics::ThresholdSpec* spec = metrics::find_threshold(t.key);
    if (!t.value || !spec) continue;
    std::optional<double> actual;
    if (in.result) actual = spec->value(*in.result);
    std::string status = state == "enforced" ? (verdicts.count(t.key) && !verdicts.at(t.key).passed ? "FAIL" : "PASS")
                         : state == "record-only" ? "RECORD"
                                                  : "NOT EVALUATED";
    row(t.key, fmt::format("{} · {} (limit {} {})", status, actual ? metrics::format_actual(*spec, *actual) : "n/a",
                           spec->kind == metrics::ThresholdKind::kMax ? "≤" : "≥", metrics::format_limit(*spec, *t.value)));
  }
  bool all_passed = run.count(job::Outcome::kFailed) == 0;
  row("Pytest stages", all_passed ? "all passed" : "failures — see pytest report");
  row("Pytest report", valid_utf8(in.pytest_html), true);
  row("Log", valid_utf8(in.log_file), true);
  row("aorta_suite", run.version + " (commit " + run.commit + ")");
  deck["run_card_display"] = card;
  // File names come from the command line: bytes, not necessarily UTF-8.
  deck["provenance"] = {{"pytest_html_path", valid_utf8(in.pytest_html)}, {"log_file_path", valid_utf8(in.log_file)},
                        {"cluster_file", valid_utf8(in.cluster_file)}, {"config_file", valid_utf8(in.config_file)},
                        {"run_id", run.run_id}, {"aorta_suite_version", run.version}, {"aorta_suite_commit", run.commit}};

  ordered_json cells = ordered_json::array();
  if (in.result) {
    ordered_json values = ordered_json::object();
    for (const auto& key : metric_keys()) values["training." + key] = number_or_null(metric(in.result, key));
    cells.push_back({{"id", in.variant->model_id.empty() ? "default" : shown(in.variant->model_id)},
                     {"dimensions", {{"nodes", std::to_string(in.nodes)}, {"gpus_per_node", std::to_string(in.gpus_per_node)},
                                     {"nccl_channels", std::to_string(in.nccl_channels)}, {"rccl_branch", in.variant->rccl.branch}}},
                     {"metrics", values}});
  }
  deck["cells"] = cells;
  ordered_json table;
  table["headers"] = {"Model", "Nodes", "GPUs/node", "NCCL channels", "RCCL branch", "Ranks", "Avg iter (ms)",
                      "Iter std across ranks (ms)", "Min rank iter (ms)", "Max rank iter (ms)", "Time variance",
                      "Compute (ms)", "Comm time (ms)", "Compute ratio", "Comm ratio", "Overlap ratio"};
  table["rows"] = ordered_json::array();
  if (in.result) {
    ordered_json r = {in.variant->model_id, in.nodes, in.gpus_per_node, in.nccl_channels, in.variant->rccl.branch};
    for (const char* key : {"ranks", "avg_iteration_time_ms", "std_iteration_time_ms", "min_iteration_time_ms",
                            "max_iteration_time_ms", "time_variance_ratio", "avg_compute_time_ms", "avg_comm_time_ms",
                            "avg_compute_ratio", "avg_comm_ratio", "avg_overlap_ratio"})
      r.push_back(number_or_null(metric(in.result, key)));
    table["rows"].push_back(r);
  }
  deck["results_table"] = table;

  // Per-rank series when there are at least two ranks; ratios as percentages here.
  ordered_json series = ordered_json::array();
  if (in.result && in.result->per_rank.size() >= 2) {
    struct Series {
      const char* group;
      const char* name;
      const char* unit;
      double (*value)(const metrics::RankMetrics&);
    };
    const Series kSeries[] = {
        {"Time", "iteration", "ms", [](const metrics::RankMetrics& r) { return r.total_time_us * 0.001; }},
        {"Time", "compute", "ms", [](const metrics::RankMetrics& r) { return r.compute_time_us * 0.001; }},
        {"Time", "comm", "ms", [](const metrics::RankMetrics& r) { return r.comm_time_us * 0.001; }},
        {"Share of iteration", "compute", "%", [](const metrics::RankMetrics& r) { return r.compute_ratio * 100; }},
        {"Share of iteration", "comm", "%", [](const metrics::RankMetrics& r) { return r.comm_ratio * 100; }},
        {"Comm overlap", "overlap", "%", [](const metrics::RankMetrics& r) { return r.overlap_ratio * 100; }}};
    for (const auto& s : kSeries) {
      ordered_json points = ordered_json::array();
      for (const auto& r : in.result->per_rank)
        if (r.rank) points.push_back({*r.rank, s.value(r)});
      series.push_back({{"group", s.group}, {"name", s.name}, {"unit", s.unit}, {"x_label", "rank"}, {"points", points}});
    }
  }
  deck["metric_charts"] = {{"series", series}};
  return deck;
}

namespace {

std::string text(const ordered_json& v) {
  if (v.is_null()) return "n/a";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{:.4g}", v.get<double>());
  return v.dump();
}

// Horizontal bars, one per entry, as inline SVG.
void svg_bars(const std::vector<std::pair<std::string, double>>& bars, const std::string& unit, std::ostream& out) {
  double max = 0;
  for (const auto& b : bars) max = std::max(max, b.second);
  int height = 24 * static_cast<int>(bars.size()) + 8;
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"" << height << "\" role=\"img\">";
  int y = 4;
  for (const auto& [label, value] : bars) {
    double w = max > 0 ? 400.0 * value / max : 0;
    out << fmt::format("<text x=\"0\" y=\"{}\" font-size=\"12\">{}</text>", y + 14, escape_xml(label))
        << fmt::format("<rect x=\"150\" y=\"{}\" width=\"{:.1f}\" height=\"18\" fill=\"#4a7bd0\"/>", y, w)
        << fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"12\">{:.3g} {}</text>", 156 + w, y + 14, value,
                       escape_xml(unit));
    y += 24;
  }
  out << "</svg>\n";
}

}  // namespace

std::string run_deck_stylesheet() {
  return "body{font-family:Helvetica,Arial,sans-serif;font-size:14px;margin:24px;color:#222;max-width:1000px}\n"
         "section{border:1px solid #ddd;border-radius:6px;padding:12px 16px;margin:16px 0;overflow-x:auto}\n"
         "table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;"
         "overflow-wrap:anywhere}\n"
         "th{background:#eee}.pass{color:#1a7f37;font-weight:bold}.fail{color:#cf222e;font-weight:bold}\n"
         ".record,.na,.not{color:#6e7781;font-weight:bold}\n";
}

void write_run_deck_html(const ordered_json& deck, std::ostream& out) {
  // The styles come from a file beside the page: Jenkins' default CSP blocks inline ones.
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Aorta Run Deck</title>\n"
         "<link rel=\"stylesheet\" href=\"aorta_run_deck.css\">\n</head>\n<body>\n";
  const auto& report = deck["report"];
  std::string overall = deck["overall_status"];
  out << "<h1>" << escape_xml(report["title"]) << "</h1>\n<p>" << escape_xml(report["subtitle"])
      << " &middot; overall <span id=\"overall-status\" class=\"" << overall << "\">" << overall << "</span></p>\n";

  out << "<section id=\"run-card\"><h2>Run card</h2><table>\n";
  for (const auto& row : deck["run_card_display"]) {
    std::string value = row[1];
    out << "<tr><th>" << escape_xml(row[0]) << "</th><td>"
        << (row[2].get<bool>() && !value.empty() ? "<a href=\"" + escape_xml(value) + "\">" + escape_xml(value) + "</a>"
                                                 : escape_xml(value))
        << "</td></tr>\n";
  }
  out << "</table></section>\n";

  out << "<section id=\"lifecycle\"><h2>Lifecycle timeline</h2>\n";
  std::vector<std::pair<std::string, double>> stages;
  for (const auto& [label, seconds] : deck["lifecycle"].items()) stages.emplace_back(label, seconds.get<double>());
  svg_bars(stages, "s", out);
  out << "</section>\n";

  out << "<section id=\"gates\"><h2>Threshold gates</h2><table>\n<tr><th>Tier</th><th>Metric</th><th>Gate</th>"
         "<th>Actual</th><th>Status</th><th>Reason</th></tr>\n";
  for (const auto& [tier, g] : deck["gate_matrix"].items()) {
    std::string status = g["status"];
    // The gate in its own unit (60000 ms, not 6e+04), from the catalogue row.
    const metrics::ThresholdSpec* spec = metrics::find_threshold(g["threshold"].get<std::string>());
    std::string gate = g["spec"].is_null() || !spec
                           ? "n/a"
                           : std::string(g["spec"]["kind"] == "max" ? "≤ " : "≥ ") +
                                 metrics::format_limit(*spec, g["spec"]["value"].get<double>());
    out << "<tr><td>" << tier << "</td><td>" << escape_xml(g["metric"]) << "</td><td>" << escape_xml(gate)
        << "</td><td>" << escape_xml(text(g["actual"])) << "</td><td class=\"" << status.substr(0, status.find(' '))
        << "\">" << status << "</td><td>" << escape_xml(g.value("reason", "")) << "</td></tr>\n";
  }
  out << "</table></section>\n";

  out << "<section id=\"result\"><h2>Benchmark result</h2>\n";
  if (deck["cells"].empty()) {
    out << "<p>No parsed metrics.</p>\n";
  } else {
    out << "<table>\n";
    for (const auto& [key, value] : deck["cells"][0]["metrics"].items())
      out << "<tr><th>" << escape_xml(key) << "</th><td>" << escape_xml(text(value)) << "</td></tr>\n";
    out << "</table>\n";
  }
  out << "</section>\n";

  const auto& series = deck["metric_charts"]["series"];
  if (!series.empty()) {
    out << "<section id=\"per-rank\"><h2>Per-rank breakdown</h2>\n";
    for (const char* group : {"Time", "Share of iteration", "Comm overlap"}) {
      out << "<h3>" << group << " by rank</h3>\n";
      std::vector<std::pair<std::string, double>> bars;
      std::string unit;
      for (const auto& s : series) {
        if (s["group"] != group) continue;
        unit = s["unit"];
        for (const auto& p : s["points"])
          bars.emplace_back(fmt::format("rank {} {}", p[0].get<int>(), s["name"].get<std::string>()), p[1].get<double>());
      }
      svg_bars(bars, unit, out);
    }
    out << "</section>\n";
  }

  out << "<section id=\"results\"><h2>Full results</h2><table>\n<tr>";
  for (const auto& h : deck["results_table"]["headers"]) out << "<th>" << escape_xml(h) << "</th>";
  out << "</tr>\n";
  for (const auto& r : deck["results_table"]["rows"]) {
    out << "<tr>";
    for (const auto& v : r) out << "<td>" << escape_xml(text(v)) << "</td>";
    out << "</tr>\n";
  }
  out << "</table></section>\n<footer>" << escape_xml(report["footer"]) << "</footer>\n</body>\n</html>\n";
}

}  // namespace aorta::report
