// correlation -> CPU time of the runtime call that launched it, for the per-step
// figures (which step launched a kernel) and the idle split (did the host launch the
// kernel that ended a gap only after the GPU went idle).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "trace/trace_reader.h"

namespace aorta::trace {

class LaunchTimes {
 public:
  using Entry = std::pair<int64_t, double>;  // (correlation, CPU ts)
  LaunchTimes() = default;  // finds nothing
  // The first runtime call of each correlation in file order wins.
  explicit LaunchTimes(const TraceData& data);
  std::optional<double> of(int64_t correlation) const;
  // By correlation, ascending (for a RisingSearch over kernels in file order).
  const LargeVector<Entry>& sorted() const { return sorted_; }

 private:
  LargeVector<Entry> sorted_;
};

}  // namespace aorta::trace
