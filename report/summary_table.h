// The human summary of a parsed run: one line per rank, then the averages.
#pragma once

#include <ostream>

#include "metrics/run_metrics.h"

namespace aorta::report {

void write_summary_table(const metrics::RunMetrics& run, std::ostream& out);

}  // namespace aorta::report
