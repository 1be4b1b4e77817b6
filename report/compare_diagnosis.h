// The diagnosis as `aorta_suite compare` reads and writes it: a report's `diagnosis`
// object (diagnosis_json.cc's shape) back into per-rank diagnoses and so into the same
// figures a parsed run gives (metrics/rank_breakdown.h), and a comparison's diagnosis
// rows as JSON.
#pragma once

#include "metrics/compare.h"
#include "result_json/metrics_json.h"

namespace aorta::report {

// Why a parsed run has no diagnosis figures.
inline constexpr const char* kNoRankDiagnosed = "no rank has a GPU-timeline diagnosis";

// Sets figures.diagnosis from ranks[].kernel_classes[{class, share_of_window}] and
// ranks[].collectives[{collective, message_bytes, busbw_gbps}], or figures.no_diagnosis
// naming the first value not of that shape.
void read_diagnosis(const nlohmann::json& diagnosis, metrics::RunFigures& figures);

// {"note", "kernel_classes", "busbw"}: the note says why the lists are empty.
nlohmann::ordered_json diagnosis_comparison_json(const metrics::Comparison& c);

}  // namespace aorta::report
