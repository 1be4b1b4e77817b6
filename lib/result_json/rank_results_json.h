// A node's part of node-side analysis (analysis.where "nodes"): its ranks' figures
// as metrics::analyze_files computed them, every field, sent to the head as JSON.
// Unlike the report shapes (metrics_json.h: rounded, bounded rows), it round-trips:
// nlohmann writes each double in the shortest form that reads back to the same bits.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "common/result.h"
#include "metrics/trace_set.h"

namespace aorta::result_json {

// The set, stamped with this build's version line ("build").
nlohmann::json rank_results_json(const metrics::TraceSet& set);
// The set again; an error naming what is missing or of the wrong type, or a build
// other than this one (its figures could differ from head-side analysis).
Result<metrics::TraceSet> rank_results_from_json(const nlohmann::json& doc);

// How the node's line starts among whatever else its command printed (job::marked_line).
inline constexpr const char* kRankResultsMarker = "aorta-rank-results: ";

}  // namespace aorta::result_json
