// The figures `aorta_suite compare` and the Run Deck's comparison read of a run,
// from a report or analyze JSON, a run folder or a trace folder; and a comparison as
// JSON.
#pragma once

#include <filesystem>

#include "common/result.h"
#include "metrics/compare.h"
#include "metrics/run_metrics.h"
#include "report/metrics_json.h"

namespace aorta::report {

// A JSON file, a run folder holding aorta_benchmark_report.json, or a folder of traces
// (analyzed here). Errors name the path.
Result<metrics::RunFigures> load_run_figures(const std::filesystem::path& path);

// The figures of a parsed run.
metrics::RunFigures run_figures(const metrics::RunMetrics& run, const std::string& source);

ordered_json comparison_json(const metrics::Comparison& c, const metrics::RunFigures& baseline,
                             const metrics::RunFigures& candidate);

}  // namespace aorta::report
