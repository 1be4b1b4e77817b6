// The run's figures where CI dashboards look for them (issue 31, 5): GitLab's metrics
// report (OpenMetrics text, `artifacts:reports:metrics`, shown in merge requests with
// the change against the target branch) and a CSV for Jenkins' Plot plugin (a row of
// series names, then a row of values). Each holds every metric of the JSON report the
// run has, and each gate's actual value, limit and margin, so a green run's margin is
// watched too.
#pragma once

#include <string>

#include "metrics/run_metrics.h"
#include "report/run_record.h"

namespace aorta::report {

inline constexpr const char* kOpenMetricsFile = "metrics.txt";
inline constexpr const char* kPlotCsvFile = "aorta_metrics.csv";

// "aorta_avg_iteration_time_ms 12.5", "aorta_gate_margin{gate=\"max_avg_iteration_ms\"} 3.5",
// the tests by outcome, each family with its # TYPE line, ending in "# EOF".
std::string openmetrics_text(const RunRecord& run, const metrics::RunMetrics* result);

// "avg_iteration_time_ms,...,gate_margin:max_avg_iteration_ms\n12.5,...,3.5\n": only the
// figures this run has (the Plot plugin keeps a series by its column name).
std::string plot_csv(const RunRecord& run, const metrics::RunMetrics* result);

}  // namespace aorta::report
