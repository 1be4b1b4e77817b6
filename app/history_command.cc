#include "app/history_command.h"

#include <charconv>
#include <cmath>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "app/exit_codes.h"
#include "common/atomic_file.h"
#include "common/utf8.h"
#include "history/history_json.h"
#include "report/history_html.h"
#include "result_json/metrics_json.h"

namespace aorta::app {
namespace {

namespace fs = std::filesystem;

// A value as the reports show it: a fraction in %, a time with 3 decimals.
std::string value_text(const metrics::MetricSpec& spec, double v) {
  if (spec.unit == metrics::MetricUnit::kFraction) return metrics::format_ratio(v, metrics::RatioStyle::kPercent);
  return fmt::format("{:.3f} {}", v, metrics::unit_name(spec.unit));
}

// "+10.00 % worse", "-2.10 pp better", "same", "-": the change against the rolling baseline.
std::string change_text(const history::TrendPoint& p) {
  if (!p.judged) return "-";
  const auto by = history::worse_by(*p.judged);
  if (!by || p.judged->verdict == "same" || p.judged->verdict == "n/a") return p.judged->verdict;
  return fmt::format("{:+.2f} {} {}", *by, history::worse_unit(*p.judged), p.judged->verdict);
}

// One group: its newest run's row per metric, then the runs where a metric changed.
void print_group(const history::RunReports& rr, const history::History& h, const std::string& group) {
  std::vector<size_t> trends;
  for (size_t t = 0; t < h.trends.size(); ++t)
    if (h.trends[t].group == group && !h.trends[t].points.empty()) trends.push_back(t);
  std::cout << "\ngroup " << printable(group) << "\n"
            << fmt::format("  {:<24} {:>6} {:>14} {:>14}  {}\n", "metric (newest run)", "runs", "value", "baseline",
                           "change");
  for (size_t t : trends) {
    const auto& trend = h.trends[t];
    const auto& p = trend.points.back();
    std::cout << fmt::format("  {:<24} {:>6} {:>14} {:>14}  {}  ({})\n", trend.metric->key, trend.points.size(),
                             value_text(*trend.metric, p.value),
                             p.baseline ? value_text(*trend.metric, *p.baseline) : "-", change_text(p),
                             printable(rr.runs[p.run].run));
  }
  for (const auto& c : h.changes) {
    if (h.trends[c.trend].group != group) continue;
    const auto& trend = h.trends[c.trend];
    const auto& p = trend.points[c.point];
    std::cout << fmt::format("  changed: {} {} {} against {} (median of {} runs): {}\n", printable(rr.runs[p.run].run),
                             trend.metric->key, value_text(*trend.metric, p.value),
                             value_text(*trend.metric, p.baseline.value_or(0)), p.baseline_count, change_text(p));
  }
}

void print_history(const fs::path& root, const history::RunReports& rr, const history::History& h) {
  std::cout << fmt::format("history of {}: {} runs read, {} unreadable; baseline: the median of the last {} passing "
                           "runs of a group; changes of {:g} % (pp for a ratio) or more\n",
                           printable(root.string()), rr.runs.size(), rr.unreadable.size(), h.options.baseline_runs,
                           h.options.min_change);
  for (const auto& u : rr.unreadable)
    std::cout << "unreadable: " << printable(u.report.string()) << ": " << printable(u.why) << "\n";
  std::vector<std::string> groups;
  for (const auto& t : h.trends)
    if (groups.empty() || groups.back() != t.group) groups.push_back(t.group);
  for (const auto& g : groups) print_group(rr, h, g);
  std::cout << "\nnamed in the last " << h.counted_runs << " runs (diagnosis, kernel log, failed gates):"
            << (h.named.empty() ? " none" : "") << "\n";
  for (const auto& n : h.named) {
    std::string runs;
    for (size_t i : n.runs) runs += (runs.empty() ? "" : ", ") + rr.runs[i].run;
    std::cout << fmt::format("  {:<28} {:>3} of {:<3} {}  ({})\n", printable(n.subject), n.runs.size(), h.counted_runs,
                             printable(runs), fmt::format("{}", fmt::join(n.sources, ", ")));
  }
  for (const auto& c : h.regressions) {
    const auto& trend = h.trends[c.trend];
    const auto& p = trend.points[c.point];
    std::cout << fmt::format("regressed: {} in {}: {} against the rolling baseline {}: {} (limit {:g} {})\n",
                             trend.metric->key, printable(rr.runs[p.run].run), value_text(*trend.metric, p.value),
                             value_text(*trend.metric, p.baseline.value_or(0)), change_text(p),
                             h.options.max_regression.value_or(0), history::worse_unit(*p.judged));
  }
}

// --max-regression PCT: a finite number >= 0.
std::optional<double> limit_of(const std::string& given) {
  double pct = 0;
  auto [end, ec] = std::from_chars(given.data(), given.data() + given.size(), pct);
  if (ec != std::errc() || end != given.data() + given.size() || !std::isfinite(pct) || pct < 0) return std::nullopt;
  return pct;
}

// The JSON, and the page with its stylesheet beside it; false (said on stderr) when one cannot be written.
bool write_outputs(const cli::Options& o, const nlohmann::ordered_json& doc) {
  std::vector<std::pair<fs::path, std::string>> files;
  if (!o.output.empty()) files.emplace_back(o.output, result_json::json_text(doc));
  if (!o.html_file.empty()) {
    if (const fs::path folder = fs::path(o.html_file).parent_path(); !folder.empty()) {
      std::error_code ec;
      fs::create_directories(folder, ec);  // a failure is said by the write below
    }
    std::ostringstream page;
    report::write_history_html(doc, page);
    files.emplace_back(o.html_file, page.str());
    files.emplace_back(fs::path(o.html_file).parent_path() / report::kHistoryStylesheet, report::history_stylesheet());
  }
  for (const auto& [path, text] : files)
    if (Status s = write_file_atomically(path, text); !s) {
      std::cerr << "aorta_suite history: " << printable(s.error().describe()) << "\n";
      return false;
    }
  return true;
}

}  // namespace

int history(const cli::Options& o) {
  try {
    history::HistoryOptions options{.last = static_cast<size_t>(o.history_last),
                                    .baseline_runs = static_cast<size_t>(o.history_baseline_runs)};
    if (!o.max_regression.empty()) {
      options.max_regression = limit_of(o.max_regression.front());
      if (!options.max_regression)
        return usage_error("--max-regression " + printable(o.max_regression.front()) + ": PCT must be a number >= 0",
                           cli::Command::kHistory);
      options.min_change = std::min(options.min_change, *options.max_regression);
    }
    auto rr = history::read_run_reports(o.history_root);
    if (!rr) return usage_error(printable(rr.error().describe()), cli::Command::kHistory);
    const history::History h = history::analyse(*rr, options);
    print_history(o.history_root, *rr, h);
    if (!write_outputs(o, history::history_json(o.history_root, *rr, h))) return kExitFailed;
    return h.regressions.empty() ? kExitOk : kExitFailed;
  } catch (const std::exception& e) {
    std::cerr << "aorta_suite history: " << printable(e.what()) << "\n";
    return kExitFailed;
  }
}

}  // namespace aorta::app
