#include "report/run_deck.h"

#include <algorithm>
#include <cmath>
#include <ctime>

#include <fmt/format.h>

#include "common/utf8.h"
#include "common/version.h"
#include "metrics/threshold_catalogue.h"
#include "report/metrics_json.h"
#include "report/redact.h"
#include "report/run_figures.h"
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
  // The Excel source is all or nothing: parse_results uses it for every rank or none.
  if (!r->per_rank.empty() && r->per_rank.front().parser == metrics::ParserPath::kTracelensExcel)
    return "Aorta TraceLens Excel reports";
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

const config::Threshold* configured(const config::Variant& v, const std::string& key) {
  for (const auto& th : v.thresholds)
    if (th.key == key && th.value) return &th;
  return nullptr;
}

// NCCL channels and the RCCL branch describe an accelerator run: one that builds
// RCCL, or whose parsed ranks have a GPU timeline. A CPU run (gloo, RCCL build
// skipped, basic trace scan) has neither, and the deck leaves them out.
bool accelerator_run(const DeckInput& in) {
  if (!in.variant->skip_rccl_build) return true;
  if (in.result)
    for (const auto& r : in.result->per_rank)
      if (r.parser == metrics::ParserPath::kGpuTimeline || r.parser == metrics::ParserPath::kTracelensExcel) return true;
  return false;
}

// A chart axis from 0: share charts have a fixed 0-100 % axis (a 3 % share is drawn
// 3 % wide), time charts one scaled to the data with round ticks (0, 5, 10, 15 ms).
ordered_json fixed_percent_axis() { return {{"max", 100}, {"ticks", {0, 25, 50, 75, 100}}}; }

ordered_json data_axis(double largest) {
  if (!(largest > 0)) largest = 1;
  const double raw = largest / 4;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0})
    if (m * magnitude >= raw * (1 - 1e-9)) {
      step = m * magnitude;
      break;
    }
  const int count = std::max(1, static_cast<int>(std::ceil(largest / step - 1e-9)));
  ordered_json ticks = ordered_json::array();
  for (int i = 0; i <= count; ++i) ticks.push_back(i * step);
  return {{"max", count * step}, {"ticks", ticks}};
}

// The configured gates of catalogue tier `tier`, in the chart's unit (a fraction
// gate on a % chart is scaled by 100). A gate off the axis is drawn at its edge.
ordered_json chart_gates(const DeckInput& in, const std::string& tier, const ordered_json& axis) {
  ordered_json gates = ordered_json::array();
  for (const auto& spec : metrics::threshold_catalogue()) {
    if (tier != spec.tier) continue;
    const config::Threshold* t = configured(*in.variant, spec.key);
    if (!t) continue;
    const bool fraction = spec.unit == metrics::ThresholdUnit::kFraction;
    const double value = fraction ? *t->value * 100 : *t->value;
    const double max = axis["max"].get<double>();
    std::string label = std::string(spec.kind == metrics::ThresholdKind::kMax ? "max " : "min ") +
                        metrics::format_limit(spec, *t->value);
    if (fraction) label += fmt::format(" ({:g} %)", value);
    label += std::string(" ") + spec.display;
    double drawn = std::clamp(value, 0.0, max);
    if (value > max) label += ", beyond the axis: drawn at its end";
    if (value < 0) label += ", below the axis: drawn at 0";
    gates.push_back({{"threshold", spec.key}, {"kind", spec.kind == metrics::ThresholdKind::kMax ? "max" : "min"},
                     {"value", value}, {"drawn_at", drawn}, {"off_axis", drawn != value}, {"label", label}});
  }
  return gates;
}

ordered_json chart(const DeckInput& in, const std::string& id, const std::string& title, const std::string& unit,
                   const std::string& tier, ordered_json bars) {
  double largest = 0;
  for (const auto& b : bars) largest = std::max(largest, b[1].get<double>());
  ordered_json axis = unit == "%" ? fixed_percent_axis() : data_axis(largest);
  ordered_json c;
  c["id"] = id;
  c["title"] = title;
  c["unit"] = unit;
  c["scale"] = unit == "%" ? "fixed" : "data";
  c["axis"] = axis;
  c["gate_tier"] = tier;  // the gate_matrix tier this chart shows; "gates": the configured ones
  c["gates"] = chart_gates(in, tier, axis);
  c["bars"] = std::move(bars);
  return c;
}

std::string rank_label(const metrics::RankMetrics& r) { return r.rank ? std::to_string(*r.rank) : "?"; }

inline constexpr const char* kNoStepsNote =
    "No per-step charts: the traces have no ProfilerStep annotations.";

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
    const config::Threshold* t = configured(*in.variant, spec.key);
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
  const bool accelerator = accelerator_run(in);
  if (accelerator) {
    row("NCCL channels", std::to_string(in.nccl_channels));
    row("RCCL branch", shown(in.variant->rccl.branch));
  }
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
  row("gtest stages", all_passed ? "all passed" : "failures — see the HTML report");
  row("HTML report", valid_utf8(in.pytest_html), true);
  row("Log", valid_utf8(in.log_file), true);
  row("aorta_suite", run.version + " (commit " + run.commit + ")");
  deck["run_card_display"] = card;
  deck["accelerator_fields"] = accelerator;
  // File names come from the command line: bytes, not necessarily UTF-8. The key
  // pytest_html_path is the original's; here it is the HTML report's path.
  deck["provenance"] = {{"pytest_html_path", valid_utf8(in.pytest_html)}, {"log_file_path", valid_utf8(in.log_file)},
                        {"cluster_file", valid_utf8(in.cluster_file)}, {"config_file", valid_utf8(in.config_file)},
                        {"run_id", run.run_id}, {"aorta_suite_version", run.version}, {"aorta_suite_commit", run.commit}};

  ordered_json cells = ordered_json::array();
  if (in.result) {
    ordered_json values = ordered_json::object();
    for (const auto& key : metric_keys()) values["training." + key] = number_or_null(metric(in.result, key));
    ordered_json dimensions = {{"nodes", std::to_string(in.nodes)}, {"gpus_per_node", std::to_string(in.gpus_per_node)}};
    if (accelerator) {
      dimensions["nccl_channels"] = std::to_string(in.nccl_channels);
      dimensions["rccl_branch"] = shown(in.variant->rccl.branch);
    }
    cells.push_back({{"id", in.variant->model_id.empty() ? "default" : shown(in.variant->model_id)},
                     {"dimensions", dimensions},
                     {"metrics", values}});
  }
  deck["cells"] = cells;
  ordered_json table;
  table["headers"] = {"Model", "Nodes", "GPUs/node"};
  if (accelerator)
    for (const char* h : {"NCCL channels", "RCCL branch"}) table["headers"].push_back(h);
  for (const char* h : {"Ranks", "Avg iter (ms)", "Iter std across ranks (ms)", "Min rank iter (ms)", "Max rank iter (ms)",
                        "Time variance", "Compute (ms)", "Comm time (ms)", "Compute ratio", "Comm ratio", "Overlap ratio"})
    table["headers"].push_back(h);
  table["rows"] = ordered_json::array();
  if (in.result) {
    ordered_json r = {shown(in.variant->model_id), in.nodes, in.gpus_per_node};
    if (accelerator) {
      r.push_back(in.nccl_channels);
      r.push_back(shown(in.variant->rccl.branch));
    }
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

  // The charts the page draws: per-rank time and shares when there are two ranks,
  // per-step time of each rank whose trace has steps.
  ordered_json charts = ordered_json::array();
  if (in.result && in.result->per_rank.size() >= 2) {
    ordered_json time = ordered_json::array(), share = ordered_json::array(), overlap = ordered_json::array();
    for (const auto& r : in.result->per_rank) {
      const std::string rank = "rank " + rank_label(r);
      time.push_back({rank + " iteration", r.total_time_us * 0.001});
      time.push_back({rank + " compute", r.compute_time_us * 0.001});
      time.push_back({rank + " comm", r.comm_time_us * 0.001});
      share.push_back({rank + " compute", r.compute_ratio * 100});
      share.push_back({rank + " comm", r.comm_ratio * 100});
      overlap.push_back({rank + " overlap", r.overlap_ratio * 100});
    }
    charts.push_back(chart(in, "time", "Time by rank", "ms", "iteration_time", time));
    charts.push_back(chart(in, "share", "Share of iteration by rank", "%", "compute_ratio", share));
    charts.push_back(chart(in, "overlap", "Comm overlap by rank", "%", "overlap_ratio", overlap));
  }
  // Each rank's first kMaxStepRows steps, as in the JSON report; the note names the
  // ranks that have more.
  ordered_json step_charts = ordered_json::array();
  std::string cut_short;
  if (in.result)
    for (const auto& r : in.result->per_rank) {
      if (r.steps.empty()) continue;
      ordered_json bars = ordered_json::array();
      for (size_t i = 0; i < r.steps.size() && i < kMaxStepRows; ++i)
        bars.push_back({"step " + std::to_string(r.steps[i].step), r.steps[i].time_ms});
      if (r.steps.size() > kMaxStepRows)
        cut_short += fmt::format("{}rank {} has {}", cut_short.empty() ? "" : ", ", rank_label(r), r.steps.size());
      step_charts.push_back(
          chart(in, "steps-rank-" + rank_label(r), "Step time, rank " + rank_label(r), "ms", "step_time", bars));
    }
  ordered_json step_note = nullptr;
  if (in.result && step_charts.empty()) step_note = kNoStepsNote;
  if (!cut_short.empty()) step_note = fmt::format("Per-step charts show each rank's first {} steps: {}.", kMaxStepRows, cut_short);
  deck["metric_charts"] = {{"series", series}, {"charts", charts}, {"step_charts", step_charts}, {"step_note", step_note}};
  // Against a baseline run (--baseline): the same comparison `aorta_suite compare` prints.
  deck["comparison"] = nullptr;
  if (in.baseline && in.result) {
    const metrics::RunFigures self = run_figures(*in.result, "this run");
    deck["comparison"] = comparison_json(metrics::compare_runs(*in.baseline, self, {}), *in.baseline, self);
  }
  return deck;
}

namespace {

std::string text(const ordered_json& v) {
  if (v.is_null()) return "n/a";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{:.4g}", v.get<double>());
  return v.dump();
}

// Chart geometry: labels left of x = kAxisX, the axis kAxisWidth wide, gate labels
// above the bars, tick labels below. Tests read these numbers back from the SVG.
constexpr int kAxisX = 150, kAxisWidth = 400, kTop = 20, kRow = 24;

std::string number(double v) { return fmt::format("{:.2f}", v); }

// Horizontal bars, one per entry, on the chart's axis, as inline SVG: ticks in the
// chart's unit, each gate a dashed orange line at its value with its label (not the
// verdict red: the CSP check counts red pixels to see the stylesheet applied).
void svg_chart(const ordered_json& bars, const std::string& unit, const ordered_json& axis, const ordered_json& gates,
               std::ostream& out) {
  const double max = axis["max"].get<double>();
  const auto x_of = [&](double v) { return kAxisX + kAxisWidth * std::clamp(v, 0.0, max) / max; };
  const int base = kTop + kRow * static_cast<int>(bars.size());
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"" << base + 22 << "\" role=\"img\">";
  // Gates first, so that bars and their values paint over a line they cross.
  for (const auto& g : gates) {
    const double x = x_of(g["drawn_at"].get<double>());
    const bool right_half = x > kAxisX + kAxisWidth / 2;
    out << fmt::format("<line class=\"gate\" data-threshold=\"{0}\" x1=\"{1}\" y1=\"{2}\" x2=\"{1}\" y2=\"{3}\" "
                       "stroke=\"#bc4c00\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/>",
                       escape_xml(g["threshold"]), number(x), kTop - 6, base)
        << fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#bc4c00\" text-anchor=\"{}\">{}</text>", number(x),
                       kTop - 8, right_half ? "end" : "start", escape_xml(g["label"]));
  }
  int y = kTop;
  for (const auto& b : bars) {
    const double value = b[1].get<double>();
    const double w = x_of(value) - kAxisX;
    out << fmt::format("<text x=\"0\" y=\"{}\" font-size=\"12\">{}</text>", y + 14, escape_xml(b[0]))
        << fmt::format("<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"18\" fill=\"#4a7bd0\"/>", kAxisX, y,
                       number(w))
        << fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\">{} {}</text>", number(kAxisX + w + 6), y + 14,
                       number(value), escape_xml(unit));
    y += kRow;
  }
  out << fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#888\"/>", kAxisX, base, kAxisX + kAxisWidth,
                     base);
  for (const auto& t : axis["ticks"]) {
    const double x = x_of(t.get<double>());
    out << fmt::format("<line class=\"tick\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#888\"/>", number(x), base,
                       base + 4)
        << fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{:g} {}</text>", number(x),
                       base + 16, t.get<double>(), escape_xml(unit));
  }
  out << "</svg>\n";
}

void chart_html(const ordered_json& c, std::ostream& out) {
  out << "<h3 id=\"chart-" << escape_xml(c["id"]) << "\">" << escape_xml(c["title"]) << "</h3>\n";
  svg_chart(c["bars"], c["unit"], c["axis"], c["gates"], out);
}

}  // namespace

std::string run_deck_stylesheet() {
  return "body{font-family:Helvetica,Arial,sans-serif;font-size:14px;margin:24px;color:#222;max-width:1000px}\n"
         "section{border:1px solid #ddd;border-radius:6px;padding:12px 16px;margin:16px 0;overflow-x:auto}\n"
         "table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;"
         "overflow-wrap:anywhere}\n"
         "th{background:#eee;overflow-wrap:normal}.pass{color:#1a7f37;font-weight:bold}.fail{color:#cf222e;font-weight:bold}\n"
         ".record,.na,.not{color:#6e7781;font-weight:bold}\n"
         // The full results table: as wide as its card, cells wrap, and what still
         // does not fit scrolls inside the card.
         ".scroll{overflow-x:auto;max-width:100%}table.wide{width:100%}table.wide th,table.wide td{font-size:12px}\n";
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
  ordered_json stages = ordered_json::array();
  double longest = 0;
  for (const auto& [label, seconds] : deck["lifecycle"].items()) {
    stages.push_back({label, seconds});
    longest = std::max(longest, seconds.get<double>());
  }
  svg_chart(stages, "s", data_axis(longest), ordered_json::array(), out);
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
    // The actual in the gate's unit too: 11.00 ms, 0.7750.
    std::string actual = g["actual"].is_null() || !spec ? "n/a" : metrics::format_actual(*spec, g["actual"].get<double>());
    out << "<tr><td>" << tier << "</td><td>" << escape_xml(g["metric"]) << "</td><td>" << escape_xml(gate)
        << "</td><td>" << escape_xml(actual) << "</td><td class=\"" << status.substr(0, status.find(' '))
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

  const auto& charts = deck["metric_charts"];
  if (!charts["charts"].empty()) {
    out << "<section id=\"per-rank\"><h2>Per-rank breakdown</h2>\n";
    for (const auto& c : charts["charts"]) chart_html(c, out);
    out << "</section>\n";
  }
  if (!charts["step_charts"].empty() || !charts["step_note"].is_null()) {
    out << "<section id=\"per-step\"><h2>Per-step time</h2>\n";
    for (const auto& c : charts["step_charts"]) chart_html(c, out);
    if (!charts["step_note"].is_null()) out << "<p>" << escape_xml(charts["step_note"]) << "</p>\n";
    out << "</section>\n";
  }

  if (const auto& c = deck["comparison"]; !c.is_null()) {
    out << "<section id=\"comparison\"><h2>Against the baseline</h2>\n<p>baseline " << escape_xml(c["baseline"])
        << "</p>\n<table>\n<tr><th>Metric</th><th>Baseline</th><th>This run</th><th>Change</th><th>Ratio</th>"
           "<th>Verdict</th></tr>\n";
    for (const auto& m : c["metrics"])
      out << "<tr><td>" << escape_xml(m["metric"]) << "</td><td>" << escape_xml(text(m["baseline"])) << "</td><td>"
          << escape_xml(text(m["candidate"])) << "</td><td>" << escape_xml(text(m["change"])) << "</td><td>"
          << (m["ratio"].is_null() ? "-" : fmt::format("{:.4f}", m["ratio"].get<double>())) << "</td><td class=\""
          << (m["verdict"] == "better" ? "pass" : m["verdict"] == "worse" ? "fail" : "na") << "\">"
          << escape_xml(m["verdict"]) << "</td></tr>\n";
    out << "</table>\n";
    if (const auto& st = c["step_times"]; !st.is_null())
      out << "<p id=\"step-comparison\">Step times: " << st["baseline_samples"].get<size_t>() << " vs "
          << st["candidate_samples"].get<size_t>() << " steps, median "
          << fmt::format("{:.3f} vs {:.3f} ms; Mann-Whitney U {}, p {:.4g}: ", st["baseline_median_ms"].get<double>(),
                         st["candidate_median_ms"].get<double>(), st["mann_whitney_u"].get<double>(),
                         st["p_value"].get<double>())
          << escape_xml(st["verdict"]) << "</p>\n";
    out << "</section>\n";
  }

  // The wide table scrolls inside its own box, never past the card.
  out << "<section id=\"results\"><h2>Full results</h2><div class=\"scroll\"><table class=\"wide\">\n<tr>";
  for (const auto& h : deck["results_table"]["headers"]) out << "<th>" << escape_xml(h) << "</th>";
  out << "</tr>\n";
  for (const auto& r : deck["results_table"]["rows"]) {
    out << "<tr>";
    for (const auto& v : r) out << "<td>" << escape_xml(text(v)) << "</td>";
    out << "</tr>\n";
  }
  out << "</table></div></section>\n<footer>" << escape_xml(report["footer"]) << "</footer>\n</body>\n</html>\n";
}

}  // namespace aorta::report
