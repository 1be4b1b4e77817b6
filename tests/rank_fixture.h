// A per-rank record with the original's derived ratios, for metric and deck tests.
#pragma once

#include <algorithm>

#include "metrics/rank_metrics.h"

namespace aorta::testing {

inline metrics::RankMetrics rank_metrics(int rank, double total, double compute, double comm) {
  metrics::RankMetrics m;
  m.rank = rank;
  m.parser = metrics::ParserPath::kBasicScan;
  m.total_time_us = total;
  m.compute_time_us = compute;
  m.comm_time_us = comm;
  m.total_comm_time_us = comm;
  m.compute_ratio = compute / total;
  m.comm_ratio = comm / total;
  m.overlap_ratio = comm > 0 ? std::max(0.0, compute + comm - total) / comm : 0.0;
  return m;
}

}  // namespace aorta::testing
