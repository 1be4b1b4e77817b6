// The Run Deck's per-step time as one rank x step heatmap (issue 46, 3): one chart at any
// number of ranks, not one per rank (516 charts, 2.4 MB at 512 ranks). Rows are ranks,
// columns steps; past kMaxHeatmapRows ranks (kMaxHeatmapColumns steps) a row (column)
// bins several and shows their max, and the caption says so. The slowest ranks and the
// diagnosis outliers are labelled "node rank N (GPU g)".
#pragma once

#include <ostream>

#include "metrics/run_metrics.h"
#include "result_json/metrics_json.h"

namespace aorta::report {

inline constexpr size_t kMaxHeatmapRows = 64;
inline constexpr size_t kMaxHeatmapColumns = 60;
inline constexpr size_t kLabelledSlowest = 5;

// Null when no rank has steps. `gates`: the step-time gates, as the charts carry them.
nlohmann::ordered_json step_heatmap_json(const metrics::RunMetrics& result, nlohmann::ordered_json gates);

// A non-null step_heatmap_json as inline SVG: rects filled by the cell's time against
// the median step time, a legend in ms, the labelled ranks right of their rows.
void svg_step_heatmap(const nlohmann::ordered_json& heatmap, std::ostream& out);

}  // namespace aorta::report
