// The Diagnosis section's per-rank bars against the ranks' median, shared by the HTML
// report and the Run Deck: what they show of a run, and how one set is drawn (an HTML
// table, one inline SVG bar a row with the median as a line across it, labelled in the
// measure's unit). No script and no inline style, so Jenkins' default CSP keeps it; the
// colours are SVG attributes, not CSS.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "metrics/run_metrics.h"

namespace aorta::report {

struct RankBars {
  std::string id;       // the table's id
  std::string measure;  // the value column's header, e.g. "Mean GEMM kernel time"
  std::string unit;     // us | GB/s
  double median = 0;    // of `bars`
  std::vector<std::pair<std::string, double>> bars;  // rank name, value
  size_t ranks = 0;  // how many ranks the median is of, when `bars` shows fewer; 0: all shown
};

// Each rank's mean GEMM (or compute) kernel time, as the slowdown gate reads it, then
// each gated collective type's bus bandwidth at its largest message size, as its
// min_*_busbw_gbps gate reads it (any number of ranks: the gate needs no median).
struct DiagnosisBars {
  std::optional<RankBars> compute;  // none: no_compute_comparison()
  std::vector<RankBars> busbw;
};
DiagnosisBars diagnosis_bars(const metrics::RunMetrics& run);

// "node2 rank 3", "rank ? (<trace>)": a rank as the bars and the per-rank table name it.
std::string rank_name(const metrics::RankMetrics& r);

// Whether any rank has a GPU-timeline diagnosis; when none has, no_diagnosis() says so
// in place of the bars (a CPU run).
bool any_diagnosed(const metrics::RunMetrics& run);
std::string no_diagnosis();

// Why there are no compute bars.
std::string no_compute_comparison();
// "No outlier." or why there is no outlier test; nothing when there are outliers.
std::optional<std::string> outlier_note(const metrics::RunMetrics& run);
// The findings a report shows: every one when some rank is diagnosed, else only the
// GPUs' own telemetry findings (they need no trace).
std::vector<const metrics::Finding*> shown_findings(const metrics::RunMetrics& run, bool diagnosed);

// The indices of `bars` that a capped view shows: all up to `most`, past it the `most`
// furthest from the median, in rank order.
std::vector<size_t> furthest_from_median(const RankBars& bars, size_t most);

// Values and the median with 2 decimals, each value's ratio to the median with 4.
void write_rank_bars(const RankBars& bars, std::ostream& out);

}  // namespace aorta::report
