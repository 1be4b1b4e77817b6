// Per-step figures of one rank, HTA's per-iteration breakdown: a step is PyTorch's
// ProfilerStep#N annotation, and a GPU event belongs to the step in which it was
// launched (its correlation id's runtime call lies inside the annotation), however
// long after the step it runs. Pure functions, no I/O.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "metrics/diagnosis.h"
#include "trace/cpu_timeline.h"
#include "trace/launch_times.h"
#include "trace/trace_reader.h"

namespace aorta::metrics {

struct StepMetrics {
  int64_t step = 0;       // N of ProfilerStep#N
  double start_us = 0;    // the annotation's ts (trace clock)
  double time_ms = 0;     // the annotation's dur
  uint64_t gpu_events = 0;  // timeline events launched in the step (0 on the CPU timeline)
  // The step's share of the rank's timeline (timeline.h, or cpu_timeline.h); absent
  // when the rank has neither (basic scan).
  std::optional<double> compute_ms;
  std::optional<double> comm_ms;          // all communication
  std::optional<double> exposed_comm_ms;  // communication where no compute runs
  std::optional<double> overlap_ms;       // |COMP ∩ COMM|
  std::optional<double> overlap_ratio;    // overlap / comm; absent when the step has no communication
  // The diagnosis's kernel classes and idle split over the step's events, shares of
  // the step's GPU span (first start to last end of its events); GPU timeline only.
  std::vector<KernelClassTime> classes;
  std::optional<IdleBreakdown> idle;
  bool operator==(const StepMetrics&) const = default;
};

// One entry per ProfilerStep annotation, by start time. `selected` is the rank's
// timeline selection (select_gpu_events); empty: no GPU timeline. A launch counts
// in [ts, ts + dur) of a step; events launched outside every step are in none.
std::vector<StepMetrics> step_metrics(const trace::TraceData& data, const std::vector<bool>& selected,
                                      const trace::LaunchTimes& launches);
// The same, building the launch times itself.
std::vector<StepMetrics> step_metrics(const trace::TraceData& data, const std::vector<bool>& selected);

// The same on the CPU timeline: a step's figures are the rank's COMP and COMM
// (cpu_timeline.h) within [ts, ts + dur) of its annotation, so an operator that
// straddles two steps is shared by the time it spends in each.
std::vector<StepMetrics> cpu_step_metrics(const trace::TraceData& data, const trace::CpuTimeline& timeline);

// What the reader left out of data.steps (trace_reader.h, DroppedSteps), one line
// each, for the rank's warnings; empty when it dropped none.
std::vector<std::string> dropped_step_warnings(const trace::TraceData& data);

// What made a straggler's step late: of its compute, exposed communication and the
// rest of the step (idle, exposed copies, launch overhead: time_ms - compute_ms -
// exposed_comm_ms), the part by which the slowest rank exceeds the fastest the most;
// none when the slowest is no slower.
struct StepStraggler {
  int64_t step = 0;
  std::optional<int> slowest_rank;  // unknown rank stays unknown
  double excess_ms = 0;             // slowest rank's step time minus the fastest's
  std::string cause;                // compute | communication | idle; empty without GPU-timeline figures
  double compute_excess_ms = 0, comm_excess_ms = 0, idle_excess_ms = 0;
};

// The steps of all ranks together (run_metrics.h computes it).
struct StepSummary {
  uint64_t step_count = 0;  // distinct step numbers over all ranks
  uint64_t samples = 0;     // (rank, step) times the figures below are over
  double mean_ms = 0;
  double median_ms = 0;
  double p95_ms = 0;        // linear interpolation between order statistics (numpy's default)
  double max_ms = 0;
  double cv = 0;            // population standard deviation / mean; 0 when the mean is 0
  // One per step number, ascending, and the largest excess (the earliest step on a
  // tie); both empty when fewer than two ranks have steps: a straggler is slower
  // than its peers, and one rank has none.
  std::vector<StepStraggler> stragglers;
  std::optional<StepStraggler> worst;
};

// What the reports say instead of a straggler when a run has one rank with steps.
inline constexpr const char* kNoStragglerPeer = "one rank: no peer to compare with, so no straggler";
// The console prints an excess to 0.001 ms: a worst one that prints as +0.000 is a tie,
// and a tie names no rank (the lowest would be named only for its number).
inline constexpr double kStragglerResolutionMs = 0.0005;
inline constexpr const char* kNoStragglerTie =
    "every step took the same time on every rank (within 0.001 ms), so no straggler";

}  // namespace aorta::metrics
