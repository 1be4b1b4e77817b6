#include "report/history_html.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/report_writer.h"
#include "report/run_deck_charts.h"

namespace aorta::report {
namespace {

using nlohmann::ordered_json;

constexpr size_t kLabelChars = 18;  // a run's name on a bar: the chart leaves 150 px for it

std::string label_of(const std::string& run) {
  return run.size() <= kLabelChars ? run : run.substr(0, kLabelChars - 1) + "~";
}

}  // namespace

std::string history_number(const ordered_json& v, const std::string& unit) {
  if (v.is_null()) return "-";
  return unit == "%" ? fmt::format("{:.2f} %", v.get<double>() * 100) : fmt::format("{:.3f} {}", v.get<double>(), unit);
}

std::string history_change(const ordered_json& p) {
  if (p["change"].is_null() || p["verdict"] == "same") return p["verdict"].is_null() ? "-" : p["verdict"].get<std::string>();
  return fmt::format("{:+.2f} {} {}", p["change"].get<double>(), p["change_unit"].get<std::string>(),
                     p["verdict"].get<std::string>());
}

namespace {

// One metric of one group: a bar per run of its last `last` runs, oldest at the top,
// the newest run's rolling baseline as a dashed line.
void trend_html(const ordered_json& t, size_t index, size_t last, std::ostream& out) {
  const bool fraction = t["unit"] == "fraction";
  const std::string unit = fraction ? "%" : t["unit"].get<std::string>();
  const double scale = fraction ? 100 : 1;
  const auto& points = t["points"];
  const size_t from = points.size() > last ? points.size() - last : 0;
  ordered_json bars = ordered_json::array(), gates = ordered_json::array();
  double largest = 0;
  for (size_t i = from; i < points.size(); ++i) {
    const double v = points[i]["value"].get<double>() * scale;
    bars.push_back({label_of(points[i]["run"]), v});
    largest = std::max(largest, v);
  }
  const ordered_json axis = fraction ? ordered_json{{"max", 100}, {"ticks", {0, 25, 50, 75, 100}}} : data_axis(largest);
  if (const auto& base = points.back()["baseline"]; !base.is_null()) {
    const double b = base.get<double>() * scale;
    gates.push_back({{"threshold", "baseline"}, {"drawn_at", std::clamp(b, 0.0, axis["max"].get<double>())},
                     {"label", fmt::format("rolling baseline {:.3f} {}", b, unit)}});
  }
  out << "<h3 id=\"trend-" << index << "\">" << escape_xml(t["metric"]) << " (" << t["better"].get<std::string>()
      << " is better; last " << bars.size() << " runs)</h3>\n";
  svg_chart(bars, unit, axis, gates, out);
}

void runs_table(const ordered_json& rows, const char* id, const char* title, std::ostream& out) {
  out << "<section id=\"" << id << "\">\n<h2>" << title << "</h2>\n";
  if (rows.empty()) {
    out << "<p>none</p>\n</section>\n";
    return;
  }
  out << "<table><tr><th>run</th><th>metric</th><th>value</th><th>baseline</th><th>change</th><th>group</th></tr>\n";
  for (const auto& c : rows) {
    const std::string unit = c["change_unit"] == "pp" ? "%" : "";
    out << "<tr><td>" << escape_xml(c["run"]) << "</td><td>" << escape_xml(c["metric"]) << "</td><td class=\"num\">"
        << (unit.empty() ? fmt::format("{:.4g}", c["value"].get<double>()) : history_number(c["value"], unit))
        << "</td><td class=\"num\">"
        << (unit.empty() ? fmt::format("{:.4g}", c["baseline"].get<double>()) : history_number(c["baseline"], unit))
        << "</td><td class=\"" << (c["direction"] == "worse" ? "fail" : "pass") << "\">" << escape_xml(history_change(c))
        << "</td><td>" << escape_xml(c["group"]) << "</td></tr>\n";
  }
  out << "</table>\n</section>\n";
}

void named_html(const ordered_json& h, std::ostream& out) {
  const size_t counted = std::min(h["options"]["last"].get<size_t>(), h["runs_read"].get<size_t>());
  out << "<section id=\"named\">\n<h2>Nodes, GPUs and ranks named in the last " << counted << " runs</h2>\n";
  if (h["named"].empty()) {
    out << "<p>none</p>\n</section>\n";
    return;
  }
  out << "<table><tr><th>node, GPU or rank</th><th>runs</th><th>which</th><th>by</th></tr>\n";
  for (const auto& n : h["named"]) {
    std::string runs, sources;
    for (const auto& r : n["run_ids"]) runs += (runs.empty() ? "" : ", ") + r.get<std::string>();
    for (const auto& s : n["sources"]) sources += (sources.empty() ? "" : ", ") + s.get<std::string>();
    out << "<tr><td>" << escape_xml(n["subject"]) << "</td><td class=\"num\">" << n["runs"] << " of " << n["of_last"]
        << "</td><td>" << escape_xml(runs) << "</td><td>" << escape_xml(sources) << "</td></tr>\n";
  }
  out << "</table>\n</section>\n";
}

}  // namespace

void write_history_html(const ordered_json& h, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Aorta run history</title>\n"
      << "<link rel=\"stylesheet\" href=\"" << kHistoryStylesheet << "\">\n</head>\n<body>\n<h1>Aorta run history</h1>\n"
      << "<p>" << escape_xml(h["root"]) << ": " << h["runs_read"] << " runs read, " << h["unreadable"].size()
      << " unreadable; baseline: the median of the last " << h["options"]["baseline_runs"]
      << " passing runs of a group.</p>\n";
  out << "<p id=\"verdict\" class=\"" << (h["regressed"].get<bool>() ? "fail\">regressed" : "pass\">no regression")
      << "</p>\n";
  if (!h["unreadable"].empty()) {
    out << "<section id=\"unreadable\">\n<h2>Unreadable reports</h2>\n<ul>\n";
    for (const auto& u : h["unreadable"]) out << "<li>" << escape_xml(u["report"]) << ": " << escape_xml(u["why"]) << "</li>\n";
    out << "</ul>\n</section>\n";
  }
  runs_table(h["regressions"], "regressions", "Regressions of the newest runs", out);
  runs_table(h["changes"], "changes", "Changes against the rolling baseline", out);
  named_html(h, out);
  const size_t last = h["options"]["last"].get<size_t>();
  std::string group;
  for (size_t i = 0; i < h["trends"].size(); ++i) {
    const auto& t = h["trends"][i];
    if (t["group"] != group) {
      out << (group.empty() ? "" : "</section>\n") << "<section class=\"group\">\n<h2>" << escape_xml(t["group"]) << "</h2>\n";
      group = t["group"];
    }
    trend_html(t, i, last, out);
  }
  out << (group.empty() ? "" : "</section>\n") << "</body>\n</html>\n";
}

std::string history_stylesheet() {
  return "body{font-family:Helvetica,Arial,sans-serif;font-size:14px;margin:24px;color:#222;max-width:1000px}\n"
         "section{border:1px solid #ddd;border-radius:6px;padding:12px 16px;margin:16px 0;overflow-x:auto}\n"
         "table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}\n"
         "th{background:#eee}.pass{color:#1a7f37;font-weight:bold}.fail{color:#cf222e;font-weight:bold}\n"
         "td.num{white-space:nowrap}#verdict{font-size:20px}\n";
}

}  // namespace aorta::report
