// The human summary of a parsed run: one line per rank, then the averages.
#pragma once

#include <ostream>
#include <string>

#include "metrics/run_metrics.h"

namespace aorta::report {

void write_summary_table(const metrics::RunMetrics& run, std::ostream& out);

// "steps: N (M rank-steps), mean ... ms, ...; worst straggler ...\n", or that the traces have none.
std::string steps_line(const metrics::RunMetrics& run);

}  // namespace aorta::report
