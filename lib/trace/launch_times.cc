#include "trace/launch_times.h"

#include <algorithm>

#include "trace/sort_runs.h"

namespace aorta::trace {

LaunchTimes::LaunchTimes(const TraceData& data) {
  sorted_.reserve(data.runtime_launches.size());
  for (const auto& l : data.runtime_launches)
    if (l.correlation != kNoKey) sorted_.emplace_back(l.correlation, l.ts);
  // Stable: of equal correlations the first in file order comes first, and is found.
  stable_sort_runs(sorted_, [](const Entry& a, const Entry& b) { return a.first < b.first; });
}

std::optional<double> LaunchTimes::of(int64_t correlation) const {
  if (correlation == kNoKey) return std::nullopt;
  auto it = std::lower_bound(sorted_.begin(), sorted_.end(), correlation,
                             [](const Entry& e, int64_t c) { return e.first < c; });
  if (it == sorted_.end() || it->first != correlation) return std::nullopt;
  return it->second;
}

}  // namespace aorta::trace
