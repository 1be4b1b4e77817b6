#include "report/run_deck_recent.h"

#include <ostream>

#include <fmt/format.h>

#include "common/regular_file.h"
#include "common/utf8.h"
#include "history/history.h"
#include "history/history_json.h"
#include "metrics/metric_catalogue.h"
#include "report/history_html.h"
#include "report/report_writer.h"

namespace aorta::report {
namespace {

namespace fs = std::filesystem;
using nlohmann::ordered_json;

ordered_json failed(const fs::path& root, const std::string& why) {
  return {{"root", valid_utf8(root.string())}, {"error", valid_utf8(why)}};
}

std::optional<std::string> text_of(const fs::path& file) {
  FileText read = read_regular_file(file, std::uintmax_t{256} << 20, /*follow_links=*/true);
  if (read.status != FileText::Status::kRead) return std::nullopt;
  return std::move(read.text);
}

// This run's folder as history names runs (relative to root), or "" when outside it.
std::string own_run(const fs::path& root, const fs::path& report) {
  std::error_code ec;
  const fs::path rel = fs::relative(fs::weakly_canonical(report.parent_path(), ec), fs::weakly_canonical(root, ec), ec);
  return ec || rel.empty() || *rel.begin() == ".." ? std::string() : valid_utf8(rel.generic_string());
}

// The last kRecentRuns runs, oldest first, each with every trend's point of it.
ordered_json rows_of(const ordered_json& h, const std::string& own) {
  ordered_json rows = ordered_json::array();
  const auto& runs = h["runs"];
  const size_t from = runs.size() > kRecentRuns ? runs.size() - kRecentRuns : 0;
  for (size_t i = from; i < runs.size(); ++i) {
    ordered_json values = ordered_json::object();
    for (const auto& t : h["trends"])
      for (const auto& p : t["points"])
        if (p["run"] == runs[i]["run"]) values[t["metric"].get<std::string>()] = p;
    rows.push_back({{"run", runs[i]["run"]}, {"passed", runs[i]["passed"]}, {"this_run", runs[i]["run"] == own},
                    {"values", values}});
  }
  return rows;
}

}  // namespace

ordered_json recent_runs_json(const fs::path& root, const std::optional<fs::path>& own_report) {
  const auto own_text = own_report ? text_of(*own_report) : std::nullopt;
  if (!own_text) return failed(root, "this run wrote no benchmark report, so its configuration's runs cannot be found");
  const std::string group = history::group_of(*own_text);
  auto found = history::group_history(root, group, {});
  if (!found) return failed(root, found.error().message);
  const ordered_json h = history::history_json(root, found->runs, found->history);
  ordered_json metrics = ordered_json::array();
  for (const auto& t : h["trends"]) {
    const auto* spec = metrics::find_metric(t["metric"].get<std::string>());
    metrics.push_back({{"metric", t["metric"]}, {"label", spec ? spec->label : t["metric"].get<std::string>()},
                       {"unit", t["unit"]}, {"better", t["better"]}});
  }
  const std::string own = own_run(root, *own_report);
  return {{"root", h["root"]},
          {"group", valid_utf8(group)},
          {"runs_in_group", h["runs_read"]},
          {"unreadable", h["unreadable"].size()},
          {"baseline_runs", h["options"]["baseline_runs"]},
          {"this_run_included", !own.empty()},
          {"metrics", metrics},
          {"rows", rows_of(h, own)},
          {"error", nullptr}};
}

void recent_runs_html(const ordered_json& s, std::ostream& out) {
  out << "<section id=\"recent-runs\">\n<h2>Recent runs</h2>\n";
  if (!s["error"].is_null()) {
    out << "<p>No recent runs from " << escape_xml(s["root"]) << ": " << escape_xml(s["error"]) << "</p>\n</section>\n";
    return;
  }
  out << "<p>The last " << s["rows"].size() << " of " << s["runs_in_group"] << " runs of " << escape_xml(s["group"])
      << " under " << escape_xml(s["root"]) << "; each value against its rolling baseline (the median of the last "
      << s["baseline_runs"] << " passing runs before it)"
      << (s["this_run_included"].get<bool>() ? "." : "; this run's folder is not under it, so it is not listed.")
      << "</p>\n<table class=\"recent-runs\">\n<tr><th>run</th><th>result</th>";
  for (const auto& m : s["metrics"]) out << "<th>" << escape_xml(m["label"]) << "</th>";
  out << "</tr>\n";
  for (const auto& row : s["rows"]) {
    out << "<tr" << (row["this_run"].get<bool>() ? " class=\"this-run\"" : "") << "><td>" << escape_xml(row["run"])
        << (row["this_run"].get<bool>() ? " (this run)" : "") << "</td><td>" << (row["passed"].get<bool>() ? "pass" : "fail")
        << "</td>";
    for (const auto& m : s["metrics"]) {
      const auto& v = row["values"];
      const std::string key = m["metric"];
      if (!v.contains(key)) {
        out << "<td>-</td>";
        continue;
      }
      const std::string unit = m["unit"] == "fraction" ? "%" : m["unit"].get<std::string>();
      out << "<td>" << escape_xml(history_number(v[key]["value"], unit)) << "<br>" << escape_xml(history_change(v[key]))
          << "</td>";
    }
    out << "</tr>\n";
  }
  out << "</table>\n</section>\n";
}

}  // namespace aorta::report
