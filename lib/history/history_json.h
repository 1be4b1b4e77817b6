// `aorta_suite history --output`: the history as JSON, the one form history.html reads.
// Keys (stable; docs/history.md): root, runs_read, unreadable [{report, why}], options
// {last, baseline_runs, max_regression, min_change}, runs [{run, report, written,
// group, passed}], trends [{group, metric, unit, better, points [{run, value, baseline,
// baseline_runs, change, change_unit, verdict}]}], changes and regressions [{group,
// metric, run, value, baseline, change, change_unit, direction, verdict}], named
// [{subject, kind, runs, of_last, run_ids, sources}], regressed.
#pragma once

#include <filesystem>

#include <nlohmann/json.hpp>

#include "history/history.h"

namespace aorta::history {

nlohmann::ordered_json history_json(const std::filesystem::path& root, const RunReports& runs, const History& h);

}  // namespace aorta::history
