// The CPU timeline: compute, communication and their overlap on traces without GPU
// events (gloo on CPU), from the CPU events the reader keeps (trace_reader.h,
// CpuEvent; which events are operators, collectives and steps: kernel_class.h).
//
// Definitions, all over one trace:
//   training thread  the (pid, tid) of the ProfilerStep#N annotations, which
//                    torch.profiler's step() writes from the thread running the
//                    training loop; without annotations, the thread with the most
//                    top-level operator time (the earliest seen on a tie), since
//                    the training loop runs every model op on its thread while
//                    helper threads (gloo's work threads, data loaders) do little
//                    or run their ops inside collectives.
//   top-level        an operator or collective not contained in ([ts, end]) an
//                    earlier-starting (on equal starts: longer) one of the same thread.
//   window           [first step start, last step end] over the ProfilerStep
//                    annotations; without annotations, [first start, last end] over
//                    the events that enter COMP or COMM below. Everything is clipped
//                    to it; total = its length.
//   COMM             union of the collectives' intervals, on any thread.
//   COMP             union of the top-level operators' intervals on the training
//                    thread, minus the intervals of the collectives on that thread
//                    (time spent inside a collective call is never compute, even when
//                    an operator encloses the call).
// Then as on the GPU path (timeline.h): computation = |COMP|, total comm = |COMM|,
// exposed comm = |COMM - COMP|, overlap = |COMP ∩ COMM|, busy = |COMP ∪ COMM|,
// idle = total - busy; memcpy is 0 (there is none on this timeline).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "trace/timeline.h"
#include "trace/trace_reader.h"

namespace aorta::trace {

struct CpuTimeline {
  Breakdown breakdown;  // selected_events: operators and collectives that entered COMP or COMM
  Intervals compute;    // COMP, merged, within the window
  Intervals comm;       // COMM, merged, within the window
  double window_start = 0;
  double window_end = 0;
  bool window_from_steps = false;
  uint32_t training_thread = 0;  // interned (pid, tid), as in CpuEvent
};

// Empty when the trace has GPU events, or no operator or collective inside the
// window, or a window of no length: the basic scan is left then.
std::optional<CpuTimeline> cpu_timeline(const TraceData& data);

// |intervals ∩ [start, end)|, intervals merged: the clipped lengths of the intervals
// it meets, added in order.
double length_within(const Intervals& intervals, double start, double end);

// length_within for each span, in O((intervals + spans) log intervals) whatever the
// spans: a binary search finds each span's first interval, and each span's sum is
// length_within's, to the last bit. Spans that overlap so much that this would visit
// the intervals again and again (a flood of steps each spanning the whole trace)
// take differences of prefix sums instead, equal up to rounding.
std::vector<double> lengths_within(const Intervals& intervals, const std::vector<Interval>& spans);

}  // namespace aorta::trace
