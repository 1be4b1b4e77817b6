// TraceLens's gpu_timeline (reference B.3-B.5): which GPU events count, their
// interval unions, and the breakdown into compute, communication, memcpy and idle.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "trace/trace_reader.h"

namespace aorta::trace {

using Interval = std::pair<double, double>;  // [start, end)
using Intervals = LargeVector<Interval>;     // sorted and disjoint once merged

// Sorts by start and merges intervals that overlap or touch (start <= previous end).
Intervals merge_intervals(Intervals intervals);
// b minus a, both merged.
Intervals subtract_intervals(const Intervals& b, const Intervals& a);
// a intersect b, both merged.
Intervals intersect_intervals(const Intervals& a, const Intervals& b);
double total_length(const Intervals& intervals);

struct Breakdown {
  double total_time = 0;     // max end - min start of the selected events
  double computation_time = 0;
  double exposed_comm_time = 0;   // communication where no compute runs
  double total_comm_time = 0;
  double exposed_memcpy_time = 0; // memcpy where neither compute nor communication runs
  double total_memcpy_time = 0;
  double busy_time = 0;
  double idle_time = 0;
  double comp_comm_overlap_time = 0;  // |COMP ∩ COMM|
  uint64_t selected_events = 0;
};

enum class KernelSelection {
  kLinkedOnly,       // TraceLens default, as the original calls it
  kIncludeUnlinked,  // Aorta's own scripts (--include_unlinked_kernels)
};

// Which gpu_events enter the timeline; true at index i means gpu_events[i] is used.
std::vector<bool> select_gpu_events(const TraceData& data, KernelSelection selection);

// The breakdown over the selected events; selected_events == 0 means no GPU timeline.
Breakdown gpu_breakdown(const TraceData& data, KernelSelection selection);
// The same over gpu_events[i] for each i in `indices` (ascending), e.g. the events of
// one profiler step (step_metrics.h).
Breakdown breakdown_of(const TraceData& data, const std::vector<uint32_t>& indices);
// The indices i where selected[i] is true, ascending.
std::vector<uint32_t> selected_indices(const std::vector<bool>& selected);

}  // namespace aorta::trace
