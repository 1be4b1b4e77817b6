// The figures `aorta_suite compare` and the Run Deck's comparison read of a run,
// from a report or analyze JSON, a run folder or a trace folder; and a comparison as
// JSON.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string_view>

#include "common/result.h"
#include "metrics/compare.h"
#include "metrics/run_metrics.h"
#include "result_json/metrics_json.h"

namespace aorta::report {

// What a report JSON may hold. A real report nests 5 levels and holds about 10
// values a profiled step; its step times are ranks x profiled steps (thousands).
struct ReportLimits {
  std::size_t max_depth = 64;
  std::size_t max_values = std::size_t{1} << 24;
  std::size_t max_step_times = std::size_t{1} << 20;
  // Its diagnosis is kept whole to be read by shape: about 100 values a rank.
  std::size_t max_diagnosis_values = std::size_t{1} << 20;
};

// A JSON file, a run folder holding aorta_benchmark_report.json, or a folder of traces
// (analyzed here). Errors name the path.
Result<metrics::RunFigures> load_run_figures(const std::filesystem::path& path);

// The figures of a report or analyze JSON's text; source names it in errors, each
// refusal naming the limit passed. A diagnosis that is not of the report's shape is
// no error: the figures say why it is not compared (no_diagnosis).
Result<metrics::RunFigures> figures_from_json(std::string_view text, const std::string& source,
                                              const ReportLimits& limits = {});

// The figures of a parsed run.
metrics::RunFigures run_figures(const metrics::RunMetrics& run, const std::string& source);

nlohmann::ordered_json comparison_json(const metrics::Comparison& c, const metrics::RunFigures& baseline,
                             const metrics::RunFigures& candidate);

}  // namespace aorta::report
