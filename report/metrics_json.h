// The metrics part of every JSON output (analyze, aorta_benchmark_report.json):
// one shape, written in one place.
#pragma once

#include <nlohmann/json.hpp>

#include "metrics/run_metrics.h"
#include "metrics/trace_set.h"

namespace aorta::report {

using ordered_json = nlohmann::ordered_json;

// performance: averages and spread across ranks.
ordered_json performance_json(const metrics::RunMetrics& run);
// per_rank_summary: one object per rank, sorted by rank.
ordered_json per_rank_json(const metrics::RunMetrics& run);
// parse: status, files, warnings, errors.
ordered_json parse_json(const metrics::TraceSet& set);

}  // namespace aorta::report
