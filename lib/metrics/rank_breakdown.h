// The diagnosis per rank as the reports draw it and compare reads it: each rank's bus
// bandwidth of a collective type at the type's largest message size (the figure the
// min_*_busbw_gbps gates read), and each kernel class's median share of the window.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/rank_metrics.h"

namespace aorta::metrics {

// The collective types that have a bus-bandwidth gate, in the order reports show them.
inline constexpr std::array<std::string_view, 3> kGatedCollectives{"allreduce", "allgather", "reduce_scatter"};


// One collective type at the largest message size any rank sent for it (small ones
// measure latency): each rank's lowest bus bandwidth there, over dtypes and groups.
struct BusbwPerRank {
  uint64_t bytes = 0;
  std::vector<std::pair<size_t, double>> gbps;  // by index into the ranks
  double median_gbps = 0;
  double lowest_gbps = 0;  // the gate's figure
};
// Nothing when no rank has such a collective with a bus bandwidth.
std::optional<BusbwPerRank> busbw_per_rank(const std::vector<RankMetrics>& ranks, std::string_view type);

// What compare reads of a run's diagnosis: each kernel class's share of the window, the
// median over the diagnosed ranks (0 on a rank without the class: none of its window),
// and per gated collective type its largest message size and lowest rank there.
struct BusbwFigure {
  uint64_t bytes = 0;
  double lowest_gbps = 0;
};
struct DiagnosisFigures {
  std::map<std::string, double> class_shares;  // fraction of the window
  std::map<std::string, BusbwFigure> busbw;    // by kGatedCollectives type
};
// Nothing when no rank has a diagnosis.
std::optional<DiagnosisFigures> diagnosis_figures(const std::vector<RankMetrics>& ranks);

}  // namespace aorta::metrics
