// Outlier ranks across a run, by robust statistics (median and MAD): slow compute
// kernels, low collective bus bandwidth, idle time out of line, each with a reason.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "metrics/rank_metrics.h"

namespace aorta::metrics {

struct Finding {
  std::optional<int> rank;  // unset for a node's finding, or a rank of unknown number
  std::optional<std::string> node;
  std::optional<int> gpu;  // the rank's GPU index on its node, where its trace says
  std::string source;   // the rank's trace file
  std::string measure;  // e.g. "gemm mean kernel time", "allreduce 4194304 B Float bus bandwidth"
  std::string unit;     // us | GB/s | ranks (a node's finding)
  double value = 0;
  double median = 0;    // of every rank that has the measure
  size_t ranks = 0;     // how many have it
  double ratio = 0;     // value / median; a node's finding: its worst rank's (for the order only)
  std::string reason;   // one plain sentence
  bool of_node = false;  // a node's own finding: no rank, value the count of its outlier ranks
  // A GPU's own finding from its telemetry (telemetry_findings.h): no rank, its node and
  // GPU, value the count of the signs out of line.
  bool of_gpu = false;
  // What the finding's GPU showed out of line in its telemetry, one sentence ("its GPU
  // spent 41 % of the window throttled (thermal), ..."); none: no telemetry, or healthy.
  std::optional<std::string> evidence;
};

// A rank is an outlier on a measure when at least kMinRanks ranks have it, it lies more
// than 3.5 robust standard deviations (1.4826 MAD) from the median (Iglewicz and
// Hoaglin's cut), and differs from it by at least the measure's share: compute 5%,
// bandwidth and idle 10% (run-to-run noise on a healthy cluster stays below).
// Compute is compared per kernel (class time over kernels, the same work on every
// rank); bus bandwidth per collective type, message size and dtype, lower only; idle
// both ways; host wait higher only. Worst first (the largest |ratio - 1|). In a run of
// two nodes or more, two or more ranks of one node with compute or bandwidth findings
// add a finding for that node (of_node, measure "outlier ranks", value their count),
// placed before its ranks' findings.
constexpr size_t kMinRanks = 3;
std::vector<Finding> find_outliers(const std::vector<RankMetrics>& ranks);

// The median of `values` (the mean of the middle two for an even count); 0 when empty.
double median_of(std::vector<double> values);

}  // namespace aorta::metrics
