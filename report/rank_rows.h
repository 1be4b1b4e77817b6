// The rows of a per-rank table at any number of ranks (issue 46): up to kListedRanks
// ranks each is a row, as always; past it the table leads with each column's min,
// median and max, lists the ranks worth a look (the diagnosis' outliers, then the
// slowest by iteration time, kListedRanks in all) and says how many it left out, so the
// console of a 512-rank run stays a screen. The console summary, analyze's table and
// the HTML report's per-rank table read it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "metrics/run_metrics.h"

namespace aorta::report {

inline constexpr size_t kListedRanks = 8;

struct RankRows {
  std::vector<const metrics::RankMetrics*> listed;  // in the run's rank order
  size_t left_out = 0;                             // 0: every rank is listed, no summary rows
};
RankRows rank_rows(const metrics::RunMetrics& run, bool every_rank = false);  // every_rank: analyze --ranks all

// A summary row: each figure of `row` is that statistic of the ranks' figure, column by
// column (not one rank's); exposed_comm_ratio over the ranks that have it.
struct SummaryRow {
  std::string name;  // min | median | max
  metrics::RankMetrics row;
};
std::vector<SummaryRow> summary_rows(const std::vector<metrics::RankMetrics>& ranks);

// "8 of 512 ranks listed (outliers, then the slowest); every rank: <where>".
std::string left_out_line(const RankRows& rows, const std::string& where);

}  // namespace aorta::report
