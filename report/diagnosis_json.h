// The diagnosis in the reports: the `diagnosis` object of the JSON outputs (analyze,
// aorta_benchmark_report.json) and the console's short "Diagnosis" lines.
#pragma once

#include <string>
#include <vector>

#include "report/metrics_json.h"

namespace aorta::report {

// {"ranks": [per-rank kernel classes, bandwidths, missing metadata], "outliers": [...]}.
ordered_json diagnosis_json(const metrics::RunMetrics& run);

// At most kMaxDiagnosisLines, worst first: "rank 3: <reason> (value vs median)"; or one
// line saying there is no outlier (or too few ranks to tell).
inline constexpr size_t kMaxDiagnosisLines = 5;
std::vector<std::string> diagnosis_lines(const metrics::RunMetrics& run);

}  // namespace aorta::report
