#include "history/history.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "history/headline.h"
#include "metrics/outliers.h"

namespace aorta::history {
namespace {

// compare's limits for --max-regression PCT: the bare PCT reaches the headline times
// (judged by the U test where the steps allow); every other headline metric is named,
// so a fraction is gated in points, as `compare --max-regression KEY=PCT` does.
std::map<std::string, double> limits_for(const HistoryOptions& o) {
  if (!o.max_regression) return {};
  std::map<std::string, double> limits{{"", *o.max_regression}};
  for (const auto* spec : headline_metrics())
    if (!metrics::gated_by_default(spec->key)) limits[spec->key] = *o.max_regression;
  return limits;
}

// The rolling baseline of a run: per metric the median of the passing runs given (those
// that have it), their step times pooled for the U test.
metrics::RunFigures baseline_of(const RunReports& rr, const std::vector<size_t>& passing) {
  metrics::RunFigures base;
  base.source = "rolling baseline";
  for (const auto* spec : headline_metrics()) {
    std::vector<double> values;
    for (size_t i : passing)
      if (auto v = rr.runs[i].performance.find(spec->key); v != rr.runs[i].performance.end()) values.push_back(v->second);
    if (!values.empty()) base.performance[spec->key] = metrics::median_of(values);
  }
  for (size_t i : passing)
    base.step_times_ms.insert(base.step_times_ms.end(), rr.runs[i].step_times_ms.begin(), rr.runs[i].step_times_ms.end());
  return base;
}

size_t runs_with(const RunReports& rr, const std::vector<size_t>& runs, const std::string& key) {
  return static_cast<size_t>(
      std::count_if(runs.begin(), runs.end(), [&](size_t i) { return rr.runs[i].performance.count(key) > 0; }));
}

// One group's trends, each run judged against the last K passing runs before it.
void group_trends(const RunReports& rr, const std::string& group, const std::vector<size_t>& members,
                  const HistoryOptions& o, History& h) {
  const auto specs = headline_metrics();
  const size_t first = h.trends.size();
  for (const auto* spec : specs) h.trends.push_back(Trend{.group = group, .metric = spec, .points = {}});
  const auto limits = limits_for(o);
  std::vector<size_t> passing;  // the group's passing runs so far, oldest first
  for (size_t i : members) {
    const RunReport& run = rr.runs[i];
    const std::vector<size_t> window(passing.end() - static_cast<std::ptrdiff_t>(std::min(passing.size(), o.baseline_runs)),
                                     passing.end());
    std::optional<metrics::Comparison> c;
    if (!window.empty()) {
      metrics::RunFigures cand;
      cand.source = run.run;
      cand.performance = run.performance;
      cand.step_times_ms = run.step_times_ms;
      c = metrics::compare_runs(baseline_of(rr, window), cand, limits);
    }
    for (size_t t = 0; t < specs.size(); ++t) {
      auto value = run.performance.find(specs[t]->key);
      if (value == run.performance.end()) continue;
      TrendPoint p{.run = i, .value = value->second};
      if (c)
        for (const auto& m : c->metrics)
          if (m.key == specs[t]->key) {
            p.baseline = m.baseline;
            p.baseline_count = runs_with(rr, window, m.key);
            p.judged = m;
          }
      h.trends[first + t].points.push_back(p);
    }
    if (run.passed) passing.push_back(i);
  }
}

bool listed(const TrendPoint& p, double min_change) {
  if (!p.judged) return false;
  const auto& m = *p.judged;
  const auto by = worse_by(m);
  return (m.verdict == "regressed" || ((m.verdict == "worse" || m.verdict == "better") && by && std::fabs(*by) >= min_change));
}

// The nodes, GPUs and ranks the last N runs named, each run counted once per subject.
std::vector<NamedCount> named_counts(const RunReports& rr, size_t first_run) {
  std::map<std::string, NamedCount> by_subject;
  for (size_t i = first_run; i < rr.runs.size(); ++i)
    for (const auto& n : rr.runs[i].named) {
      NamedCount& c = by_subject[n.kind + "\n" + n.subject];
      c.subject = n.subject;
      c.kind = n.kind;
      if (c.runs.empty() || c.runs.back() != i) c.runs.push_back(i);
      if (std::find(c.sources.begin(), c.sources.end(), n.source) == c.sources.end()) c.sources.push_back(n.source);
    }
  std::vector<NamedCount> out;
  for (auto& [key, c] : by_subject) {
    std::sort(c.sources.begin(), c.sources.end());
    out.push_back(std::move(c));
  }
  std::stable_sort(out.begin(), out.end(), [](const NamedCount& a, const NamedCount& b) {
    if (a.runs.size() != b.runs.size()) return a.runs.size() > b.runs.size();
    // A node before its GPUs before its ranks; by_subject gave the names in order.
    auto order = [](const std::string& kind) { return kind == "node" ? 0 : kind == "gpu" ? 1 : 2; };
    return order(a.kind) < order(b.kind);
  });
  return out;
}

}  // namespace

std::optional<double> worse_by(const metrics::MetricComparison& m) {
  return m.judged == metrics::Judged::kPoints ? m.regression_points : m.regression_pct;
}

const char* worse_unit(const metrics::MetricComparison& m) { return m.judged == metrics::Judged::kPoints ? "pp" : "%"; }

History analyse(const RunReports& rr, const HistoryOptions& o) {
  History h;
  h.options = o;
  std::vector<std::string> groups;  // in the order first seen
  std::map<std::string, std::vector<size_t>> members;
  for (size_t i = 0; i < rr.runs.size(); ++i) {
    auto& m = members[rr.runs[i].group];
    if (m.empty()) groups.push_back(rr.runs[i].group);
    m.push_back(i);
  }
  for (const auto& g : groups) group_trends(rr, g, members[g], o, h);
  for (size_t t = 0; t < h.trends.size(); ++t) {
    const auto& points = h.trends[t].points;
    for (size_t p = 0; p < points.size(); ++p)
      if (listed(points[p], o.min_change)) h.changes.push_back({t, p});
    // The gate looks at the group's newest run alone: an old regression since mended passes.
    const size_t newest = members[h.trends[t].group].back();
    if (!points.empty() && points.back().run == newest && points.back().judged &&
        points.back().judged->verdict == "regressed")
      h.regressions.push_back({t, points.size() - 1});
  }
  std::stable_sort(h.changes.begin(), h.changes.end(), [&](const Change& a, const Change& b) {
    return h.trends[a.trend].points[a.point].run < h.trends[b.trend].points[b.point].run;
  });
  h.counted_runs = std::min(o.last, rr.runs.size());
  h.named = named_counts(rr, rr.runs.size() - h.counted_runs);
  return h;
}

Result<GroupHistory> group_history(const std::filesystem::path& root, const std::string& group,
                                   const HistoryOptions& options) {
  auto all = read_run_reports(root);
  if (!all) return all.error();
  GroupHistory out;
  out.runs.unreadable = std::move(all->unreadable);
  for (auto& run : all->runs)
    if (run.group == group) out.runs.runs.push_back(std::move(run));
  if (out.runs.runs.empty()) return Error{ErrorCode::kNotFound, "no run of the group " + group, root.string()};
  out.history = analyse(out.runs, options);
  return out;
}

}  // namespace aorta::history
