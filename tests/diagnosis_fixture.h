// Hand-made per-rank diagnoses for report and metrics tests. Fields are set by name:
// RankDiagnosis grows, and a positional initialiser would shift with it.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "metrics/rank_metrics.h"

namespace aorta::testing {

inline metrics::CollectiveBandwidth collective(const char* name, uint64_t bytes, std::optional<double> busbw_gbps,
                                               const char* dtype = "Float") {
  metrics::CollectiveBandwidth b;
  b.collective = name;
  b.dtype = dtype;
  b.group_size = 8;
  b.bytes = bytes;
  b.count = 1;
  b.busbw_gbps = busbw_gbps;
  return b;
}

// A rank with a 1000 us window and the given kernel classes and collectives.
inline metrics::RankMetrics diagnosed_rank(std::optional<int> rank, std::vector<metrics::KernelClassTime> classes,
                                           std::vector<metrics::CollectiveBandwidth> collectives = {}) {
  metrics::RankMetrics m;
  m.rank = rank;
  m.diagnosis.emplace();
  m.diagnosis->window_us = 1000;
  m.diagnosis->classes = std::move(classes);
  m.diagnosis->collectives = std::move(collectives);
  return m;
}

}  // namespace aorta::testing
