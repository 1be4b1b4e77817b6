// The diagnosis figures the optional gates read, from the per-rank diagnosis of the
// same reading pass: the slowest rank's compute against the median of the ranks, and
// the lowest bus bandwidth of one collective type.
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/gate_subject.h"
#include "metrics/rank_metrics.h"

namespace aorta::metrics {

// Each rank's mean compute-kernel time (us), by index into the ranks: GEMM kernels when
// kMinRanks or more ranks have them, else all compute kernels (GEMM, attention, other);
// nothing when fewer ranks have such kernels on a GPU-timeline diagnosis.
struct ComputePerRank {
  const char* kernels;  // "GEMM" or "compute"
  std::vector<std::pair<size_t, double>> mean_us;
  double median_us = 0;
};
std::optional<ComputePerRank> compute_per_rank(const std::vector<RankMetrics>& ranks);

// The largest mean compute-kernel time of a rank over the median of every rank's (the
// outliers' median, kMinRanks or more ranks): GEMM kernels when that many ranks have
// them, else all compute kernels (GEMM, attention, other). 1.0: no rank slower.
// Nothing when fewer ranks have a GPU-timeline diagnosis with such kernels.
std::optional<double> max_rank_compute_slowdown_ratio(const std::vector<RankMetrics>& ranks);
// The rank that figure is of (the first of equals); nothing when there is no figure.
std::optional<GateSubject> slowest_compute_rank(const std::vector<RankMetrics>& ranks);

// The lowest bus bandwidth (GB/s) of any rank for collectives whose name holds `type`
// (allreduce also all_reduce, allgather also all_gather), at the largest message size
// any rank sent for it (the bandwidth-bound one: small ones measure latency).
// Nothing when no rank has such a collective with its metadata.
std::optional<double> min_busbw_gbps(const std::vector<RankMetrics>& ranks, std::string_view type);
// The rank that figure is of (the first of equals); nothing when there is no figure.
std::optional<GateSubject> lowest_busbw_rank(const std::vector<RankMetrics>& ranks, std::string_view type);

}  // namespace aorta::metrics
