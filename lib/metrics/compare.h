// Two runs side by side (aorta_suite compare): per metric the two values, the change,
// the ratio and a verdict; on the per-step times a Mann-Whitney U test, as Google
// Benchmark's tools/compare.py does for repetitions. Pure functions, no I/O.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "metrics/rank_breakdown.h"

namespace aorta::metrics {

// What compare reads of one run: the compared metrics (compared_metrics()) that the
// report's `performance` holds as numbers, and step_count (the window its words name),
// and every rank's step times.
struct RunFigures {
  std::string source;
  std::map<std::string, double> performance;
  std::vector<double> step_times_ms;
  // {} initialisers: positional initialisers of the fields above stay warning-free.
  std::optional<DiagnosisFigures> diagnosis{};  // absent: why in no_diagnosis
  std::string no_diagnosis{};
  // What ran, so that two runs of different kinds are not compared silently: each rank's
  // parser (parser_name) in rank order, and the settings the JSON records (a report's
  // `configuration`, analyze's `kernel_selection`) as text; empty when not recorded.
  std::vector<std::string> rank_parsers{};
  std::map<std::string, std::string> configuration{};
};

// How a metric's verdict was reached (issue 31, 8: a noise model):
// - kSteps: a mean or median time (the window, the step mean and median) with at
//   least kMinSamples step times a side: "same" when the Mann-Whitney U test finds no
//   significant difference (unless a limit named for the metric is passed), else by
//   relative change; tails (p95, max) are always judged by relative change;
// - kPoints: a fraction of the window, judged in absolute terms: "same" within
//   kNoisePoints percentage points, a --max-regression limit in points (a change from
//   0.02 to 0.01 is 1 point, not "50 % worse");
// - kRelative: by relative change against the baseline.
enum class Judged { kRelative, kSteps, kPoints };

struct MetricComparison {
  std::string key;
  bool lower_is_better = true;
  double baseline = 0;
  double candidate = 0;
  double change = 0;                     // candidate - baseline
  std::optional<double> ratio;           // candidate / baseline; none when the baseline is 0
  std::optional<double> regression_pct;  // how much worse, in % of the baseline (negative: better)
  std::optional<double> regression_points;  // fractions: how much worse, in percentage points
  std::optional<double> limit_pct;       // --max-regression for this metric (points for a fraction)
  Judged judged = Judged::kRelative;
  std::string verdict;                   // better | worse | same | regressed | n/a
};

inline constexpr size_t kMinSamples = 9;     // per side, below which the U test is not trusted (compare.py's)
inline constexpr double kNoisePoints = 1.0;  // a fraction's change below this many points is noise

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

// The diagnosis rows are informational: no --max-regression reaches them.
// A kernel class's median share of the window (a fraction), in either run (0 where
// absent); no better or worse, only the change.
struct ShareComparison {
  std::string kernel_class;
  double baseline = 0;
  double candidate = 0;
  double change = 0;            // candidate - baseline, in fractions of the window
  std::optional<double> ratio;  // none when the baseline is 0
  std::string verdict;          // same | changed
};

// A gated collective type's lowest rank bus bandwidth at its largest message size,
// in both runs. Higher is better; sizes that differ are not compared (n/a).
struct BusbwComparison {
  std::string collective;
  uint64_t baseline_bytes = 0;
  uint64_t candidate_bytes = 0;
  double baseline_gbps = 0;
  double candidate_gbps = 0;
  double change = 0;
  std::optional<double> ratio;
  std::string verdict;  // better | worse | same | n/a
};

struct UnjudgedMetric {
  std::string key;
  std::string why;  // "its baseline is 0 (candidate 100): no change in % to judge"
};

struct Comparison {
  std::vector<MetricComparison> metrics;  // the compared keys both runs have, in a fixed order
  std::optional<StepComparison> steps;    // both runs have step times
  bool regressed = false;                 // a metric past its --max-regression
  std::vector<ShareComparison> class_shares;  // by class name
  std::vector<BusbwComparison> busbw;         // in kGatedCollectives order, types both runs have
  std::string no_diagnosis;                   // why there are no diagnosis rows; empty when there are
  std::vector<std::string> warnings;          // said before the verdicts: too few samples to judge noise
  std::vector<std::string> mismatches;        // how the two runs differ in kind (run_mismatches); verdicts unchanged
  // Gated metrics (a --max-regression limit reaches them) that cannot be judged: in
  // one run only, not a finite number, or a baseline of 0 under a later non-zero value
  // (no percentage). A gate must not pass on them as "n/a" (issue 42, 6).
  std::vector<UnjudgedMetric> unjudged;
};

// The keys compare looks at (the catalogue's kInCompare rows), in the order it shows them.
std::vector<std::string> compared_metrics();
// The performance figures RunFigures keeps: compared_metrics() and step_count.
std::vector<std::string> figure_metrics();

// The metrics a bare --max-regression PCT gates: the headline times (ms or us). Others
// are gated only when named (KEY=PCT), a fraction in points.
bool gated_by_default(const std::string& key);

// limits: per key, or "" for every headline metric without its own (gated_by_default).
Comparison compare_runs(const RunFigures& baseline, const RunFigures& candidate,
                        const std::map<std::string, double>& limits);

}  // namespace aorta::metrics
