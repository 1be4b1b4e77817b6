// Aggregation across ranks and the threshold gate (reference §3.7, §3.8).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "config/variant.h"
#include "metrics/outliers.h"
#include "metrics/rank_metrics.h"
#include "metrics/threshold_catalogue.h"
#include "telemetry/gpu_telemetry.h"

namespace aorta::metrics {

struct RunMetrics {
  std::vector<RankMetrics> per_rank;  // sorted by rank, unknown ranks last
  double avg_iteration_time_us = 0;   // mean of per-rank total_time_us
  double avg_iteration_time_ms = 0;
  double std_iteration_time_us = 0;   // sample standard deviation (n - 1), 0 for one rank
  double min_iteration_time_us = 0;
  double max_iteration_time_us = 0;
  std::optional<double> time_variance_ratio;  // std / mean; absent when the mean is 0
  double avg_compute_ratio = 0;
  double avg_comm_ratio = 0;
  double avg_overlap_ratio = 0;
  std::optional<double> avg_exposed_comm_ratio;  // timeline ranks only
  std::optional<double> peak_memory_gb;          // the largest rank's; null: no memory events
  double avg_compute_time_us = 0;
  double avg_comm_time_us = 0;
  // Per-step figures over every rank's steps; absent when no trace has ProfilerStep
  // annotations. avg_iteration_time_* above is the whole profiled window, kept as the
  // original reports it.
  std::optional<StepSummary> steps;
  std::vector<Finding> outliers;  // worst first; empty: no outlier (or fewer than kMinRanks ranks)
  // The GPUs' telemetry over the benchmark (issue 47); absent when no node sampled.
  std::optional<telemetry::RunTelemetry> telemetry;
};

// Fails on an empty list or an average ratio outside 0..1.
Result<RunMetrics> aggregate(std::vector<RankMetrics> per_rank);

struct ThresholdCheck {
  std::string key;  // e.g. max_avg_iteration_ms
  std::optional<ThresholdKind> kind;  // the gate's; nothing for a key no metric's row gates
  double limit = 0;
  std::optional<double> actual;  // null: not checkable (variance with a zero mean)
  bool passed = true;
  std::string message;  // the original's failure text; empty when passed
  std::optional<MetricUnit> unit;  // the gated metric's; nothing for an unknown key
  // A per-rank gate's: the rank its actual is of; named at the end of its failure text.
  std::optional<GateSubject> subject;
};

// One check per non-null threshold, in the order given.
std::vector<ThresholdCheck> check_thresholds(const RunMetrics& run, const std::vector<config::Threshold>& thresholds);

}  // namespace aorta::metrics
