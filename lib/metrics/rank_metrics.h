// Per-rank metrics from one trace, on either parser path (pure functions, no I/O).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "metrics/diagnosis.h"
#include "metrics/step_metrics.h"

#include "trace/timeline.h"
#include "trace/trace_reader.h"

namespace aorta::metrics {

enum class ParserPath {
  kGpuTimeline,  // TraceLens-compatible gpu_timeline over GPU events
  kCpuTimeline,  // the same breakdown on CPU operators and collectives: no GPU events (trace/cpu_timeline.h)
  kBasicScan,    // the original's raw scan: neither timeline in the trace
  kTracelensExcel,  // the gpu_timeline sheet of TraceLens's per-rank Excel report (single node)
};

const char* parser_name(ParserPath path);

struct RankMetrics {
  std::optional<int> rank;  // unknown stays unknown, never 0
  std::string rank_source;  // distributedInfo, path, or unknown
  std::string source;       // the trace file
  // The node the trace came from: the collection's folder of that node in a suite run,
  // else the host in Kineto's tensorboard_trace_handler file name (<host>_<pid>.<ms>
  // .pt.trace.json); unknown stays unknown.
  std::optional<std::string> node;
  // The GPU's index on its node (args.device of its kernels); unset when the trace does
  // not say or names several.
  std::optional<int> gpu;
  ParserPath parser = ParserPath::kGpuTimeline;
  double total_time_us = 0;
  double compute_time_us = 0;
  // The original's "comm": exposed communication on the timeline paths, total
  // communication-kernel time on the basic scan.
  double comm_time_us = 0;
  double total_comm_time_us = 0;
  std::optional<double> exposed_comm_time_us;
  std::optional<double> total_memcpy_time_us;
  std::optional<double> exposed_memcpy_time_us;
  std::optional<double> busy_time_us;
  std::optional<double> idle_time_us;
  double compute_ratio = 0;
  double comm_ratio = 0;
  double overlap_ratio = 0;
  std::optional<double> exposed_comm_ratio;
  // The original's peak_memory_gb: the largest "Total Allocated" / 1024^3; null when the
  // trace has no memory events (profile_memory off).
  std::optional<double> peak_memory_gb;
  std::vector<StepMetrics> steps;  // empty: the trace has no ProfilerStep annotations
  std::optional<RankDiagnosis> diagnosis;  // the GPU timeline path only
  // Field by field, doubles by value: node-side and head-side analysis agree to the bit.
  bool operator==(const RankMetrics&) const = default;
};

// Timeline path. Overlap is |COMP ∩ COMM| / |COMM| (HTA's comp_comm_overlap): the
// original's max(0, compute + exposed - total) / exposed is 0 on every such trace.
RankMetrics from_timeline(const trace::Breakdown& b);

// CPU timeline path: the timeline path's fields and formulas over the CPU timeline's
// breakdown; the memcpy fields are absent (no copies on that timeline).
RankMetrics from_cpu_timeline(const trace::Breakdown& b);

// Basic scan path, the original's formulas: total is the sum of event durations
// (or the trace span when that is 0), overlap max(0, compute + comm - total) / comm.
RankMetrics from_basic_scan(const trace::BasicScan& s);

}  // namespace aorta::metrics
