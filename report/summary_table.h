// The human summary of a parsed run: one line per rank, then the averages.
#pragma once

#include <ostream>
#include <string>

#include "metrics/metric_catalogue.h"
#include "metrics/run_metrics.h"

namespace aorta::report {

// analyze's console table; every ratio on it is a percentage. Past kListedRanks ranks it
// shows a summary and the ranks worth a look (rank_rows.h), unless every_rank.
void write_summary_table(const metrics::RunMetrics& run, std::ostream& out, bool every_rank = false);

// "steps: N (M rank-steps), mean ... ms, ...; worst straggler ...\n", or that the traces
// have none; the cv in `style`, the style of the table it ends.
std::string steps_line(const metrics::RunMetrics& run, metrics::RatioStyle style = metrics::RatioStyle::kFraction);

}  // namespace aorta::report
