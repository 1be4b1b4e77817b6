#include "history/history_json.h"

#include <cmath>

#include "common/utf8.h"

namespace aorta::history {
namespace {
using nlohmann::ordered_json;

ordered_json number_or_null(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? ordered_json(*v) : ordered_json(nullptr);
}

ordered_json point_json(const RunReports& rr, const TrendPoint& p) {
  const std::optional<double> change = p.judged ? worse_by(*p.judged) : std::nullopt;
  return {{"run", valid_utf8(rr.runs[p.run].run)},
          {"value", p.value},
          {"baseline", number_or_null(p.baseline)},
          {"baseline_runs", p.baseline_count},
          {"change", number_or_null(change)},  // > 0: worse
          {"change_unit", p.judged ? ordered_json(worse_unit(*p.judged)) : ordered_json(nullptr)},
          {"verdict", p.judged ? ordered_json(p.judged->verdict) : ordered_json(nullptr)}};
}

ordered_json change_json(const RunReports& rr, const History& h, const Change& c) {
  const Trend& t = h.trends[c.trend];
  const TrendPoint& p = t.points[c.point];
  ordered_json out = {{"group", valid_utf8(t.group)}, {"metric", t.metric->key}};
  const ordered_json point = point_json(rr, p);
  for (const auto& [key, value] : point.items())
    if (key != "baseline_runs") out[key] = value;
  out["direction"] = worse_by(*p.judged).value_or(0) > 0 ? "worse" : "better";
  return out;
}

}  // namespace

nlohmann::ordered_json history_json(const std::filesystem::path& root, const RunReports& rr, const History& h) {
  ordered_json unreadable = ordered_json::array(), runs = ordered_json::array(), trends = ordered_json::array();
  for (const auto& u : rr.unreadable) unreadable.push_back({{"report", valid_utf8(u.report.string())}, {"why", valid_utf8(u.why)}});
  for (const auto& r : rr.runs)
    runs.push_back({{"run", valid_utf8(r.run)}, {"report", valid_utf8(r.report.string())}, {"written", r.written},
                    {"group", valid_utf8(r.group)}, {"passed", r.passed}});
  for (const auto& t : h.trends) {
    if (t.points.empty()) continue;
    ordered_json points = ordered_json::array();
    for (const auto& p : t.points) points.push_back(point_json(rr, p));
    trends.push_back({{"group", valid_utf8(t.group)}, {"metric", t.metric->key}, {"unit", metrics::unit_name(t.metric->unit)},
                      {"better", t.metric->better == metrics::Better::kLower ? "lower" : "higher"}, {"points", points}});
  }
  ordered_json changes = ordered_json::array(), regressions = ordered_json::array(), named = ordered_json::array();
  for (const auto& c : h.changes) changes.push_back(change_json(rr, h, c));
  for (const auto& c : h.regressions) regressions.push_back(change_json(rr, h, c));
  for (const auto& n : h.named) {
    ordered_json ids = ordered_json::array();
    for (size_t i : n.runs) ids.push_back(valid_utf8(rr.runs[i].run));
    named.push_back({{"subject", valid_utf8(n.subject)}, {"kind", n.kind}, {"runs", n.runs.size()},
                     {"of_last", h.counted_runs}, {"run_ids", ids}, {"sources", n.sources}});
  }
  return {{"root", valid_utf8(root.string())},
          {"runs_read", rr.runs.size()},
          {"unreadable", unreadable},
          {"options", {{"last", h.options.last}, {"baseline_runs", h.options.baseline_runs},
                       {"max_regression", number_or_null(h.options.max_regression)}, {"min_change", h.options.min_change}}},
          {"runs", runs},
          {"trends", trends},
          {"changes", changes},
          {"named", named},
          {"regressions", regressions},
          {"regressed", !h.regressions.empty()}};
}

}  // namespace aorta::history
