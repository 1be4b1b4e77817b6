#include "metrics/diagnosis_gates.h"

#include <algorithm>
#include <string>

#include "metrics/outliers.h"
#include "metrics/rank_breakdown.h"

namespace aorta::metrics {
namespace {

// Mean kernel time of the named compute classes on one rank; nothing without kernels.
std::optional<double> mean_kernel_us(const RankDiagnosis& d, std::initializer_list<std::string_view> names) {
  double time_us = 0;
  uint64_t kernels = 0;
  for (const KernelClassTime& c : d.classes)
    if (std::find(names.begin(), names.end(), c.name) != names.end()) {
      time_us += c.time_us;
      kernels += c.kernels;
    }
  return kernels ? std::optional<double>(time_us / static_cast<double>(kernels)) : std::nullopt;
}

std::optional<ComputePerRank> per_rank_of(const std::vector<RankMetrics>& ranks, const char* label,
                                          std::initializer_list<std::string_view> names) {
  ComputePerRank out{label, {}, 0};
  std::vector<double> values;
  for (size_t i = 0; i < ranks.size(); ++i)
    if (ranks[i].diagnosis)
      if (auto v = mean_kernel_us(*ranks[i].diagnosis, names)) {
        out.mean_us.emplace_back(i, *v);
        values.push_back(*v);
      }
  out.median_us = median_of(values);
  if (values.size() < kMinRanks || !(out.median_us > 0)) return std::nullopt;
  return out;
}

// The slowest rank's (index, mean); the first of equals.
std::pair<size_t, double> slowest_of(const ComputePerRank& compute) {
  std::pair<size_t, double> slowest{0, -1};
  for (const auto& [rank, mean_us] : compute.mean_us)
    if (mean_us > slowest.second) slowest = {rank, mean_us};
  return slowest;
}

GateSubject subject_of(const RankMetrics& r) { return {r.node, r.rank, r.gpu}; }

}  // namespace

std::optional<ComputePerRank> compute_per_rank(const std::vector<RankMetrics>& ranks) {
  if (auto gemm = per_rank_of(ranks, "GEMM", {"gemm"})) return gemm;
  return per_rank_of(ranks, "compute", {"gemm", "attention", "other_compute"});
}

std::optional<double> max_rank_compute_slowdown_ratio(const std::vector<RankMetrics>& ranks) {
  const auto compute = compute_per_rank(ranks);
  if (!compute) return std::nullopt;
  return slowest_of(*compute).second / compute->median_us;
}

std::optional<GateSubject> slowest_compute_rank(const std::vector<RankMetrics>& ranks) {
  const auto compute = compute_per_rank(ranks);
  return compute ? std::optional(subject_of(ranks[slowest_of(*compute).first])) : std::nullopt;
}

std::optional<double> min_busbw_gbps(const std::vector<RankMetrics>& ranks, std::string_view type) {
  const auto b = busbw_per_rank(ranks, type);
  return b ? std::optional<double>(b->lowest_gbps) : std::nullopt;
}

std::optional<GateSubject> lowest_busbw_rank(const std::vector<RankMetrics>& ranks, std::string_view type) {
  const auto b = busbw_per_rank(ranks, type);
  if (!b) return std::nullopt;
  for (const auto& [index, gbps] : b->gbps)
    if (gbps == b->lowest_gbps) return subject_of(ranks[index]);
  return std::nullopt;
}

}  // namespace aorta::metrics
