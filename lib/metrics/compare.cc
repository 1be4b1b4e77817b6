#include "metrics/compare.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "metrics/metric_catalogue.h"
#include "metrics/outliers.h"
#include "metrics/run_mismatch.h"

namespace aorta::metrics {
namespace {

// The diagnosis rows of two runs that both have one.
void compare_diagnosis(const DiagnosisFigures& base, const DiagnosisFigures& cand, Comparison& out) {
  std::map<std::string, std::pair<double, double>> shares;  // a class of either run, 0 where absent
  for (const auto& [name, share] : base.class_shares) shares[name].first = share;
  for (const auto& [name, share] : cand.class_shares) shares[name].second = share;
  for (const auto& [name, s] : shares) {
    ShareComparison row{name, s.first, s.second, s.second - s.first, std::nullopt, s.first == s.second ? "same" : "changed"};
    if (s.first != 0) row.ratio = s.second / s.first;
    out.class_shares.push_back(row);
  }
  for (std::string_view type : kGatedCollectives) {
    auto b = base.busbw.find(std::string(type)), c = cand.busbw.find(std::string(type));
    if (b == base.busbw.end() || c == cand.busbw.end()) continue;
    BusbwComparison row{std::string(type), b->second.bytes, c->second.bytes, b->second.lowest_gbps,
                        c->second.lowest_gbps, c->second.lowest_gbps - b->second.lowest_gbps, std::nullopt, "n/a"};
    if (row.baseline_gbps != 0) row.ratio = row.candidate_gbps / row.baseline_gbps;
    // Another message size is another measurement (latency against bandwidth): no verdict.
    if (row.baseline_bytes == row.candidate_bytes && (row.ratio || row.change == 0))
      row.verdict = row.change > 0 ? "better" : row.change < 0 ? "worse" : "same";
    out.busbw.push_back(row);
  }
}

}  // namespace

std::vector<std::string> compared_metrics() {
  std::vector<std::string> keys;
  for (const MetricSpec* spec : metrics_in(kInCompare)) keys.emplace_back(spec->key);
  return keys;
}

std::vector<std::string> figure_metrics() {
  std::vector<std::string> keys = compared_metrics();
  keys.emplace_back("step_count");
  return keys;
}

MannWhitney mann_whitney(const std::vector<double>& baseline, const std::vector<double>& candidate) {
  const size_t n1 = baseline.size(), n2 = candidate.size(), n = n1 + n2;
  if (n1 == 0 || n2 == 0) return {};
  // Every value with its side; ranks 1..n, ties given their average rank.
  std::vector<std::pair<double, bool>> all;
  for (double x : baseline) all.emplace_back(x, true);
  for (double x : candidate) all.emplace_back(x, false);
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum = 0, ties = 0;  // ties: sum of t^3 - t over groups of equal values
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i), rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k)
      if (all[k].second) rank_sum += rank;
    ties += t * t * t - t;
    i = j;
  }
  const double a = static_cast<double>(n1), b = static_cast<double>(n2), total = static_cast<double>(n);
  MannWhitney r;
  r.u = rank_sum - a * (a + 1) / 2;
  const double mean = a * b / 2;
  const double variance = a * b / 12 * ((total + 1) - (total > 1 ? ties / (total * (total - 1)) : 0));
  if (variance <= 0) return {r.u, 1};  // every value equal: no evidence either way
  const double z = std::max(0.0, std::fabs(r.u - mean) - 0.5) / std::sqrt(variance);
  r.p = std::erfc(z / std::sqrt(2.0));
  return r;
}

bool gated_by_default(const std::string& key) {
  const MetricSpec* spec = find_metric(key);
  return spec && (spec->unit == MetricUnit::kMs || spec->unit == MetricUnit::kUs);
}

namespace {

StepComparison compare_steps(const RunFigures& baseline, const RunFigures& candidate) {
  StepComparison s;
  s.baseline_samples = baseline.step_times_ms.size();
  s.candidate_samples = candidate.step_times_ms.size();
  s.baseline_median_ms = median_of(baseline.step_times_ms);
  s.candidate_median_ms = median_of(candidate.step_times_ms);
  s.test = mann_whitney(baseline.step_times_ms, candidate.step_times_ms);
  if (s.baseline_samples < 2 || s.candidate_samples < 2) s.verdict = "too few steps";
  else if (s.test.p >= kSignificance) s.verdict = "no significant difference";
  else s.verdict = s.candidate_median_ms > s.baseline_median_ms ? "slower" : "faster";
  return s;
}

// The times whose change the step times' U test can judge: their means and median.
bool judged_by_steps(const std::string& key) {
  return key == "avg_iteration_time_ms" || key == "avg_step_time_ms" || key == "median_step_time_ms";
}

// Why a metric's two values give no verdict: a value not finite (a report that says
// inf), or a time from 0 to something (no percentage of 0); empty when they give one.
// A fraction is judged in points, so a baseline of 0 is a value like any other.
std::string unjudgeable(const MetricSpec& spec, double base, double cand) {
  for (const auto& [side, v] : {std::pair{"baseline", base}, std::pair{"candidate", cand}})
    if (!std::isfinite(v)) return fmt::format("its {} value is not a finite number ({})", side, v);
  if (base == 0 && cand != 0 && spec.unit != MetricUnit::kFraction)
    return fmt::format("its baseline is 0 (candidate {:.6g}): no change in % to judge", cand);
  return "";
}

// The limit on a metric: its own (KEY=PCT), else the bare one for a headline time.
std::optional<double> limit_of(const std::string& key, const std::map<std::string, double>& limits) {
  if (auto own = limits.find(key); own != limits.end()) return own->second;
  if (auto all = limits.find(""); all != limits.end() && gated_by_default(key)) return all->second;
  return std::nullopt;
}

// One metric's change and verdict, judged as Judged says. steps_trusted: both runs
// have kMinSamples step times or more; steps_differ: the U test finds them different.
MetricComparison compare_metric(const MetricSpec& spec, double base, double cand,
                                const std::map<std::string, double>& limits, bool steps_trusted, bool steps_differ) {
  MetricComparison m;
  m.key = spec.key;
  m.lower_is_better = spec.better == Better::kLower;
  m.baseline = base;
  m.candidate = cand;
  m.change = cand - base;
  const auto own = limits.find(m.key);
  m.limit_pct = limit_of(m.key, limits);
  if (!unjudgeable(spec, base, cand).empty()) {  // no number can say better or worse
    m.verdict = "n/a";
    return m;
  }
  const double worse = m.lower_is_better ? m.change : -m.change;  // > 0: worse
  if (base != 0) {
    m.ratio = cand / base;
    m.regression_pct = worse / std::fabs(base) * 100;
  } else if (cand == 0) {
    m.regression_pct = 0;
  }
  if (spec.unit == MetricUnit::kFraction) {
    m.judged = Judged::kPoints;
    m.regression_points = worse * 100;
    const double points = *m.regression_points;
    if (m.limit_pct && points > *m.limit_pct) m.verdict = "regressed";
    else m.verdict = std::fabs(points) < kNoisePoints ? "same" : points > 0 ? "worse" : "better";
    return m;
  }
  // The U test compares the steps' central tendency: it speaks for the mean and the
  // median, never for a tail (p95, max). A limit the user named for the metric still holds.
  if (judged_by_steps(m.key) && steps_trusted) {
    m.judged = Judged::kSteps;
    const bool named_limit_passed = own != limits.end() && m.regression_pct && *m.regression_pct > own->second;
    if (!steps_differ && !named_limit_passed) {  // within the steps' own noise: no change to judge
      m.verdict = "same";
      return m;
    }
  }
  const double pct = m.regression_pct.value_or(0);  // set: 0 to something is unjudgeable, above
  if (m.limit_pct && pct > *m.limit_pct) m.verdict = "regressed";
  else m.verdict = pct > 0 ? "worse" : pct < 0 ? "better" : "same";
  return m;
}

}  // namespace

Comparison compare_runs(const RunFigures& baseline, const RunFigures& candidate,
                        const std::map<std::string, double>& limits) {
  Comparison out;
  out.mismatches = run_mismatches(baseline, candidate);
  const bool both_steps = !baseline.step_times_ms.empty() && !candidate.step_times_ms.empty();
  if (both_steps) out.steps = compare_steps(baseline, candidate);
  const bool trusted = both_steps && out.steps->baseline_samples >= kMinSamples &&
                       out.steps->candidate_samples >= kMinSamples;
  if (!both_steps)
    out.warnings.push_back("no step times in both runs: times are judged by their relative change alone, with no "
                           "estimate of the noise");
  else if (!trusted)
    out.warnings.push_back(fmt::format("{} vs {} step times, fewer than {} a side: too few for the U test to tell "
                                       "noise from a change, so times are judged by their relative change; profile "
                                       "more steps",
                                       out.steps->baseline_samples, out.steps->candidate_samples, kMinSamples));
  const bool differ = trusted && out.steps->test.p < kSignificance;
  for (const MetricSpec* spec : metrics_in(kInCompare)) {
    auto b = baseline.performance.find(spec->key), c = candidate.performance.find(spec->key);
    const bool in_base = b != baseline.performance.end(), in_cand = c != candidate.performance.end();
    const bool gated = limit_of(spec->key, limits).has_value();
    if (gated && in_base != in_cand)
      out.unjudged.push_back({spec->key, in_base ? "in the baseline only" : "in the candidate only"});
    if (!in_base || !in_cand) continue;
    if (std::string why = unjudgeable(*spec, b->second, c->second); gated && !why.empty())
      out.unjudged.push_back({spec->key, why});
    out.metrics.push_back(compare_metric(*spec, b->second, c->second, limits, trusted, differ));
    out.regressed = out.regressed || out.metrics.back().verdict == "regressed";
  }
  if (baseline.diagnosis && candidate.diagnosis) compare_diagnosis(*baseline.diagnosis, *candidate.diagnosis, out);
  else out.no_diagnosis = !baseline.diagnosis ? "baseline " + baseline.source + ": " + baseline.no_diagnosis
                                              : "candidate " + candidate.source + ": " + candidate.no_diagnosis;
  return out;
}

}  // namespace aorta::metrics
