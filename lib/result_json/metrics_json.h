// The metrics part of every JSON output (analyze, aorta_benchmark_report.json):
// one shape, written in one place.
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "metrics/run_metrics.h"
#include "metrics/trace_set.h"

namespace aorta::result_json {

using ordered_json = nlohmann::ordered_json;

// A figure that may be absent: the number, or null (every output's one rule).
ordered_json optional_number(const std::optional<double>& v);

// Per-step rows in the reports (per_rank_summary[].steps, performance.step_stragglers,
// the Run Deck's step charts). A real run has tens to thousands of steps; a hostile
// trace can have hundreds of thousands within the memory budget, each a row of JSON
// and a bar of a chart. Past this many only the first (by start; stragglers by step
// number) are shown, and a note says how many there were.
inline constexpr size_t kMaxStepRows = 1000;

// "per-step rows: first 1000 of 5000 shown", or null when all `total` are.
ordered_json step_rows_note(size_t total);

// performance: averages and spread across ranks.
ordered_json performance_json(const metrics::RunMetrics& run);
// per_rank_summary: one object per rank, sorted by rank.
ordered_json per_rank_json(const metrics::RunMetrics& run);
// parse: status, files, warnings, errors.
ordered_json parse_json(const metrics::TraceSet& set);

// Pretty JSON (2-space indent, trailing newline), the one way a JSON output becomes
// text. Strings are made valid UTF-8 where they enter; any invalid sequence that
// slipped past is replaced here too, instead of throwing type_error.316 mid-report.
std::string json_text(const ordered_json& doc);

}  // namespace aorta::result_json
