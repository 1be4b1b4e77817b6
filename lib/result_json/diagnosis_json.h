// The diagnosis in the reports: the `diagnosis` object of the JSON outputs (analyze,
// aorta_benchmark_report.json) and the console's short "Diagnosis" lines.
#pragma once

#include <string>
#include <vector>

#include "result_json/metrics_json.h"

namespace aorta::result_json {

// {"ranks": [per-rank kernel classes, idle split, bandwidths, missing metadata], "outliers": [...]}.
ordered_json diagnosis_json(const metrics::RunMetrics& run);
// Whom a finding is about, as every report names it: "node3 rank 5 (GPU 5)", "rank 2",
// "rank unknown", the node alone for a node's own finding, "node3 GPU 3" for a GPU's.
std::string finding_subject(const metrics::Finding& f);
// Its reason, then its GPU's telemetry evidence where it has some: "<reason>; its GPU ...".
std::string finding_text(const metrics::Finding& f);
// The parts a rank's steps repeat (metrics_json's steps).
ordered_json kernel_classes_json(const std::vector<metrics::KernelClassTime>& classes);
ordered_json idle_json(const metrics::IdleBreakdown& idle);

// At most kMaxDiagnosisLines, worst first: "node2 rank 3: <reason> (value vs median)", then
// "; <evidence>" where its GPU's telemetry has some; or one line saying there is no
// outlier (or too few ranks to tell). A GPU's own finding shows even past the room, and a
// last line counts the findings left out.
inline constexpr size_t kMaxDiagnosisLines = 5;
std::vector<std::string> diagnosis_lines(const metrics::RunMetrics& run);

}  // namespace aorta::result_json
