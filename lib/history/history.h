// What `aorta_suite history` finds in a series of runs: each headline metric's trend
// per group (suite and configuration) against a rolling baseline, the median of the
// last K passing runs of the group before it, judged by compare's noise model
// (metrics/compare.h); the runs where a metric changed; the nodes and ranks the last
// N runs named, worst first; and the newest runs past --max-regression.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "history/run_reports.h"
#include "metrics/compare.h"
#include "metrics/metric_catalogue.h"

namespace aorta::history {

struct HistoryOptions {
  size_t last = 20;           // N: the runs whose named nodes and ranks are counted
  size_t baseline_runs = 5;   // K: the passing runs of a rolling baseline
  std::optional<double> max_regression{};  // PCT (points for a fraction); none: no gate
  double min_change = 5;      // a change listed: at least this many % (points for a fraction)
};

// One run of a metric's trend: its value, and its rolling baseline when the group had
// a passing run before it (judged: compare's verdict of the run against it).
struct TrendPoint {
  size_t run = 0;  // index into RunReports::runs
  double value = 0;
  std::optional<double> baseline{};
  size_t baseline_count = 0;  // passing runs in the baseline (at most K)
  std::optional<metrics::MetricComparison> judged{};
};

struct Trend {
  std::string group;
  const metrics::MetricSpec* metric = nullptr;
  std::vector<TrendPoint> points;  // oldest first
};

// A judged point whose verdict is worse, better or regressed by at least min_change.
struct Change {
  size_t trend = 0;  // into History::trends
  size_t point = 0;  // into its points
};

struct NamedCount {
  std::string subject;
  std::string kind;                  // node | gpu | rank
  std::vector<size_t> runs;          // the runs of the last N naming it, oldest first
  std::vector<std::string> sources;  // diagnosis, kernel log, gate <key>: sorted, once each
};

struct History {
  HistoryOptions options;
  std::vector<Trend> trends;          // by group (first seen), then the catalogue's order
  std::vector<Change> changes;        // by run, then trend
  size_t counted_runs = 0;            // min(N, runs)
  std::vector<NamedCount> named;      // most runs first, then nodes before ranks, then by name
  std::vector<Change> regressions;    // the newest run of a group past max_regression, beyond noise
};

// The magnitude compare judged: points for a fraction, else % of the baseline (> 0: worse).
std::optional<double> worse_by(const metrics::MetricComparison& m);
const char* worse_unit(const metrics::MetricComparison& m);  // "pp" or "%"

History analyse(const RunReports& runs, const HistoryOptions& options);

// One group's runs under root and their history: what a Run Deck's "recent runs" strip
// shows of its own run's group (group_of its report). An error names root when it
// holds no readable report of the group.
struct GroupHistory {
  RunReports runs;  // the group's alone, oldest first; every unreadable report
  History history;
};
Result<GroupHistory> group_history(const std::filesystem::path& root, const std::string& group,
                                   const HistoryOptions& options);

}  // namespace aorta::history
