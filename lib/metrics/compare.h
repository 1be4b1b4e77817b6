// Two runs side by side (aorta_suite compare): per metric the two values, the change,
// the ratio and a verdict; on the per-step times a Mann-Whitney U test, as Google
// Benchmark's tools/compare.py does for repetitions. Pure functions, no I/O.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aorta::metrics {

// What compare reads of one run: the compared metrics (compared_metrics()) that the
// report's `performance` holds as numbers, and every rank's step times.
struct RunFigures {
  std::string source;
  std::map<std::string, double> performance;
  std::vector<double> step_times_ms;
};

struct MetricComparison {
  std::string key;
  bool lower_is_better = true;
  double baseline = 0;
  double candidate = 0;
  double change = 0;                     // candidate - baseline
  std::optional<double> ratio;           // candidate / baseline; none when the baseline is 0
  std::optional<double> regression_pct;  // how much worse, in % of the baseline (negative: better)
  std::optional<double> limit_pct;       // --max-regression for this metric
  std::string verdict;                   // better | worse | same | regressed | n/a
};

struct MannWhitney {
  double u = 0;  // U of the baseline sample
  double p = 1;  // two-sided, normal approximation with tie and continuity corrections
};

// Ranks with ties averaged; fewer than one value on a side gives p = 1.
MannWhitney mann_whitney(const std::vector<double>& baseline, const std::vector<double>& candidate);

struct StepComparison {
  size_t baseline_samples = 0;
  size_t candidate_samples = 0;
  double baseline_median_ms = 0;
  double candidate_median_ms = 0;
  MannWhitney test;
  std::string verdict;  // slower | faster | no significant difference | too few steps
};

inline constexpr double kSignificance = 0.05;

struct Comparison {
  std::vector<MetricComparison> metrics;  // the compared keys both runs have, in a fixed order
  std::optional<StepComparison> steps;    // both runs have step times
  bool regressed = false;                 // a metric past its --max-regression
};

// The keys compare looks at (the catalogue's kInCompare rows), in the order it shows them.
std::vector<std::string> compared_metrics();

// limits: per key, or "" for every metric without its own.
Comparison compare_runs(const RunFigures& baseline, const RunFigures& candidate,
                        const std::map<std::string, double>& limits);

}  // namespace aorta::metrics
