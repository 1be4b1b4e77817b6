// aorta_run_deck.html and its stylesheet: the deck's JSON drawn as one page of
// sections, its charts as inline SVG. Reads only the JSON, so the page shows what the
// JSON says.
#include <algorithm>

#include <fmt/format.h>

#include "metrics/threshold_catalogue.h"
#include "report/report_writer.h"
#include "report/run_deck.h"
#include "report/run_deck_recent.h"
#include "report/run_deck_charts.h"
#include "report/run_deck_diagnosis.h"
#include "report/run_deck_heatmap.h"

namespace aorta::report {
namespace {

std::string text(const nlohmann::ordered_json& v) {
  if (v.is_null()) return "n/a";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{:.4g}", v.get<double>());
  return v.dump();
}

// Chart geometry: labels left of x = kAxisX, the axis kAxisWidth wide, gate labels
// above the bars, tick labels below. Tests read these numbers back from the SVG.
constexpr int kAxisX = 150, kAxisWidth = 400, kTop = 20, kRow = 24;

std::string number(double v) { return fmt::format("{:.2f}", v); }

// Each gate a dashed orange line at its value with its label (not the verdict red:
// the CSP check counts red pixels to see the stylesheet applied).
template <typename XOf>
void svg_gates(const nlohmann::ordered_json& gates, const XOf& x_of, int base, std::ostream& out) {
  for (const auto& g : gates) {
    const double x = x_of(g["drawn_at"].get<double>());
    const bool right_half = x > kAxisX + kAxisWidth / 2;
    out << fmt::format("<line class=\"gate\" data-threshold=\"{0}\" x1=\"{1}\" y1=\"{2}\" x2=\"{1}\" y2=\"{3}\" "
                       "stroke=\"#bc4c00\" stroke-width=\"2\" stroke-dasharray=\"4 3\"/>",
                       escape_xml(g["threshold"]), number(x), kTop - 6, base)
        << fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" fill=\"#bc4c00\" text-anchor=\"{}\">{}</text>", number(x),
                       kTop - 8, right_half ? "end" : "start", escape_xml(g["label"]));
  }
}

}  // namespace

// Horizontal bars, one per entry, on the chart's axis, as inline SVG: ticks in the
// chart's unit, the gates as lines.
void svg_chart(const nlohmann::ordered_json& bars, const std::string& unit, const nlohmann::ordered_json& axis, const nlohmann::ordered_json& gates,
               std::ostream& out) {
  const double max = axis["max"].get<double>();
  const auto x_of = [&](double v) { return kAxisX + kAxisWidth * std::clamp(v, 0.0, max) / max; };
  const int base = kTop + kRow * static_cast<int>(bars.size());
  out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"" << base + 22 << "\" role=\"img\">";
  // Gates first, so that bars and their values paint over a line they cross.
  svg_gates(gates, x_of, base, out);
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

namespace {

void chart_html(const nlohmann::ordered_json& c, std::ostream& out) {
  out << "<h3 id=\"chart-" << escape_xml(c["id"]) << "\">" << escape_xml(c["title"]) << "</h3>\n";
  svg_chart(c["bars"], c["unit"], c["axis"], c["gates"], out);
}

// One heatmap for every rank and step, its caption and the step gates in words.
void step_heatmap_html(const nlohmann::ordered_json& h, std::ostream& out) {
  out << "<h3 id=\"chart-step-heatmap\">" << escape_xml(h["title"]) << "</h3>\n";
  svg_step_heatmap(h, out);
  out << "<p class=\"caption\">" << escape_xml(h["caption"]);
  for (const auto& g : h["gates"]) out << " Gate: " << escape_xml(g["label"]) << ".";
  out << "</p>\n";
}

void run_card_html(const nlohmann::ordered_json& deck, std::ostream& out) {
  out << "<section id=\"run-card\"><h2>Run card</h2><table>\n";
  for (const auto& row : deck["run_card_display"]) {
    std::string value = row[1];
    out << "<tr><th>" << escape_xml(row[0]) << "</th><td>"
        << (row[2].get<bool>() && !value.empty() ? "<a href=\"" + link_href(value) + "\">" + escape_xml(value) + "</a>"
                                                 : escape_xml(value))
        << "</td></tr>\n";
  }
  out << "</table></section>\n";
}

void lifecycle_html(const nlohmann::ordered_json& deck, std::ostream& out) {
  out << "<section id=\"lifecycle\"><h2>Lifecycle timeline</h2>\n";
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  double longest = 0;
  for (const auto& [label, seconds] : deck["lifecycle"].items()) {
    stages.push_back({label, seconds});
    longest = std::max(longest, seconds.get<double>());
  }
  svg_chart(stages, "s", data_axis(longest), nlohmann::ordered_json::array(), out);
  // The stages that did not run, in run order, each with why.
  if (const auto& skipped = deck["lifecycle_skipped"]; skipped.is_object() && !skipped.empty()) {
    out << "<ul class=\"skipped\">\n";
    for (const auto& [label, reason] : skipped.items())
      out << "<li>" << escape_xml(label) << ": skipped (" << escape_xml(reason.get<std::string>()) << ")</li>\n";
    out << "</ul>\n";
  }
  out << "</section>\n";
}

// A dotted snake_case name that may break after each '_' and '.' (a <wbr>), so that at
// 800 px the gates table fits its card and the reason column keeps its room.
std::string breakable(const std::string& name) {
  std::string out;
  for (char c : escape_xml(name)) {
    out += c;
    if (c == '_' || c == '.') out += "<wbr>";
  }
  return out;
}

void gates_html(const nlohmann::ordered_json& deck, std::ostream& out) {
  out << "<section id=\"gates\"><h2>Threshold gates</h2><table class=\"gates\">\n<tr><th>Tier</th><th>Metric</th><th>Gate</th>"
         "<th>Actual</th><th>Status</th><th>Reason</th></tr>\n";
  for (const auto& [tier, g] : deck["gate_matrix"].items()) {
    if (tier == "record") {  // the metrics no gate reads: recorded only
      std::string metrics;
      for (const auto& m : g["metrics"]) metrics += (metrics.empty() ? "" : ", ") + m.get<std::string>();
      out << "<tr><td>record</td><td>" << breakable(metrics)
          << "</td><td class=\"num\">n/a</td><td class=\"num\">n/a</td><td class=\"record\">record</td>"
             "<td class=\"reason\">recorded, not gated</td></tr>\n";
      continue;
    }
    std::string status = g["status"];
    // The gate in its own unit (60000 ms, not 6e+04), from the catalogue row.
    const metrics::ThresholdSpec* spec = metrics::find_threshold(g["threshold"].get<std::string>());
    std::string gate = g["spec"].is_null() || !spec
                           ? "n/a"
                           : std::string(g["spec"]["kind"] == "max" ? "≤ " : "≥ ") +
                                 metrics::format_limit(*spec, g["spec"]["value"].get<double>());
    // The actual in the gate's unit too: 11.00 ms, 0.7750.
    std::string actual = g["actual"].is_null() || !spec ? "n/a" : metrics::format_actual(*spec, g["actual"].get<double>());
    out << "<tr><td>" << breakable(tier) << "</td><td>" << breakable(g["metric"]) << "</td><td class=\"num\">"
        << escape_xml(gate) << "</td><td class=\"num\">" << escape_xml(actual) << "</td><td class=\""
        << status.substr(0, status.find(' ')) << "\">" << status << "</td><td class=\"reason\">"
        << escape_xml(g.value("reason", "")) << "</td></tr>\n";
  }
  out << "</table></section>\n";
}

void result_html(const nlohmann::ordered_json& deck, std::ostream& out) {
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
}

void charts_html(const nlohmann::ordered_json& deck, std::ostream& out) {
  const auto& charts = deck["metric_charts"];
  if (!charts["charts"].empty()) {
    out << "<section id=\"per-rank\"><h2>Per-rank breakdown</h2>\n";
    for (const auto& c : charts["charts"]) chart_html(c, out);
    out << "</section>\n";
  }
  if (const auto& h = charts["step_heatmap"]; !h.is_null() || !charts["step_note"].is_null()) {
    out << "<section id=\"per-step\"><h2>Per-step time</h2>\n";
    if (!h.is_null()) step_heatmap_html(h, out);
    if (!charts["step_note"].is_null()) out << "<p>" << escape_xml(charts["step_note"]) << "</p>\n";
    out << "</section>\n";
  }
}

// The comparison's diagnosis rows (compare_diagnosis.h), in the metrics' table and
// number formats compare prints; informational, so only bandwidth has a colour.
void diagnosis_comparison_rows(const nlohmann::ordered_json& d, std::ostream& out) {
  auto ratio = [](const nlohmann::ordered_json& r) { return r.is_null() ? std::string("-") : fmt::format("{:.4f}", r.get<double>()); };
  for (const auto& k : d["kernel_classes"])
    out << "<tr><td>share " << escape_xml(k["class"]) << "</td><td>"
        << fmt::format("{:.2f} %</td><td>{:.2f} %</td><td>{:+.2f} pp", k["baseline_share"].get<double>() * 100,
                       k["candidate_share"].get<double>() * 100, k["change"].get<double>() * 100)
        << "</td><td>" << ratio(k["ratio"]) << "</td><td class=\"na\">" << escape_xml(k["verdict"]) << "</td></tr>\n";
  for (const auto& b : d["busbw"])
    out << "<tr><td>busbw " << escape_xml(b["collective"]) << "</td><td>"
        << fmt::format("{:.3f} GB/s</td><td>{:.3f} GB/s</td><td>{:+.3f}", b["baseline_gbps"].get<double>(),
                       b["candidate_gbps"].get<double>(), b["change"].get<double>())
        << "</td><td>" << ratio(b["ratio"]) << "</td><td class=\""
        << (b["verdict"] == "better" ? "pass" : b["verdict"] == "worse" ? "fail" : "na") << "\">"
        << escape_xml(b["verdict"]) << "</td></tr>\n";
}

void comparison_html(const nlohmann::ordered_json& c, std::ostream& out) {
  out << "<section id=\"comparison\"><h2>Against the baseline</h2>\n<p>baseline " << escape_xml(c["baseline"])
      << "</p>\n<table>\n<tr><th>Metric</th><th>Baseline</th><th>This run</th><th>Change</th><th>Ratio</th>"
         "<th>Verdict</th></tr>\n";
  for (const auto& m : c["metrics"])
    out << "<tr><td>" << escape_xml(m["metric"]) << "</td><td>" << escape_xml(text(m["baseline"])) << "</td><td>"
        << escape_xml(text(m["candidate"])) << "</td><td>" << escape_xml(text(m["change"])) << "</td><td>"
        << (m["ratio"].is_null() ? "-" : fmt::format("{:.4f}", m["ratio"].get<double>())) << "</td><td class=\""
        << (m["verdict"] == "better" ? "pass" : m["verdict"] == "worse" ? "fail" : "na") << "\">"
        << escape_xml(m["verdict"]) << "</td></tr>\n";
  const nlohmann::ordered_json* diagnosis = c.contains("diagnosis") && c["diagnosis"].is_object() ? &c["diagnosis"] : nullptr;
  if (diagnosis) diagnosis_comparison_rows(*diagnosis, out);
  out << "</table>\n";
  if (diagnosis && (*diagnosis)["note"].is_string())
    out << "<p id=\"diagnosis-comparison-note\">" << escape_xml((*diagnosis)["note"]) << "</p>\n";
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
void full_results_html(const nlohmann::ordered_json& deck, std::ostream& out) {
  out << "<section id=\"results\"><h2>Full results</h2><div class=\"scroll\"><table class=\"wide\">\n<tr>";
  for (const auto& h : deck["results_table"]["headers"]) out << "<th>" << escape_xml(h) << "</th>";
  out << "</tr>\n";
  for (const auto& r : deck["results_table"]["rows"]) {
    out << "<tr>";
    for (const auto& v : r) out << (v.is_number() ? "<td class=\"num\">" : "<td>") << escape_xml(text(v)) << "</td>";
    out << "</tr>\n";
  }
  out << "</table></div></section>\n";
}

}  // namespace

std::string run_deck_stylesheet() {
  return "body{font-family:Helvetica,Arial,sans-serif;font-size:14px;margin:24px;color:#222;max-width:1000px}\n"
         "section{border:1px solid #ddd;border-radius:6px;padding:12px 16px;margin:16px 0;overflow-x:auto}\n"
         // Numbers and names never break mid-token (0.000146 stays whole): a table
         // too wide for its card scrolls inside it instead.
         "table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;"
         "overflow-wrap:normal;word-break:normal}\n"
         "th{background:#eee;overflow-wrap:normal}.pass{color:#1a7f37;font-weight:bold}.fail{color:#cf222e;font-weight:bold}\n"
         ".record,.na,.not{color:#6e7781;font-weight:bold}\n"
         ".verdict-line{font-size:18px}.verdict{font-size:28px;text-transform:uppercase;padding:2px 12px;"
         "border:3px solid currentColor;border-radius:6px}ul.skipped{color:#6e7781}td.num{white-space:nowrap}\n"
         // The full results table: as wide as its card, cells wrap, and what still
         // does not fit scrolls inside the card.
         ".scroll{overflow-x:auto;max-width:100%}table.wide{width:100%}table.wide th,table.wide td{font-size:12px}\n"
         // The gates table fits its card (names break after '_' and '.'), so the reason
         // keeps its room and wraps between words.
         "table.gates{width:100%}td.reason{min-width:12em;overflow-wrap:break-word}\n"
         "tr.this-run td{font-weight:bold;background:#fff8c5}\n";
}

void write_run_deck_html(const nlohmann::ordered_json& deck, std::ostream& out) {
  // The styles come from a file beside the page: Jenkins' default CSP blocks inline ones.
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Aorta Run Deck</title>\n"
         "<link rel=\"stylesheet\" href=\"aorta_run_deck.css\">\n</head>\n<body>\n";
  const auto& report = deck["report"];
  std::string overall = deck["overall_status"];
  // The verdict first and large, in words (issue 31, 9): no one has to look for it.
  out << "<h1>" << escape_xml(report["title"]) << "</h1>\n<p class=\"verdict-line\">overall <span id=\"overall-status\" "
      << "class=\"verdict " << overall << "\">" << overall << "</span></p>\n<p>" << escape_xml(report["subtitle"])
      << "</p>\n";
  // What a reader looks for next: the gates and the Diagnosis, before the card and the
  // charts (one per rank and step, thousands of px with many ranks).
  gates_html(deck, out);
  if (const auto& d = deck["diagnosis"]; !d.is_null()) deck_diagnosis_html(d, out);
  if (deck.contains("recent_runs")) recent_runs_html(deck["recent_runs"], out);
  run_card_html(deck, out);
  lifecycle_html(deck, out);
  result_html(deck, out);
  charts_html(deck, out);
  if (const auto& c = deck["comparison"]; !c.is_null()) comparison_html(c, out);
  full_results_html(deck, out);
  out << "<footer>" << escape_xml(report["footer"]) << "</footer>\n</body>\n</html>\n";
}

}  // namespace aorta::report
