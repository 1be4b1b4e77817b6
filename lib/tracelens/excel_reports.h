// The original's single-node metrics source (reference §3.3): the gpu_timeline sheet
// of each TraceLens per-rank Excel report under <analysis>/individual_reports/.
#pragma once

#include <filesystem>

#include "metrics/trace_set.h"

namespace aorta::tracelens {

// The reports the original would read: sorted perf_rank*.xlsx, else perf_*ch_rank*.xlsx.
std::vector<std::filesystem::path> find_excel_reports(const std::filesystem::path& analysis_dir);

// One rank per readable report: total, compute and communication times from the
// sheet (ms -> µs) with the same ratios as the trace path (overlap is
// (total comm - exposed comm) / total comm, the trace path's |COMP ∩ COMM| / |COMM|).
// A report that cannot be read is a warning naming it; status kFailed with the error
// "No reports could be parsed" when none could.
metrics::TraceSet parse_excel_reports(const std::filesystem::path& analysis_dir);

}  // namespace aorta::tracelens
