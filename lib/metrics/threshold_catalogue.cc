#include "metrics/threshold_catalogue.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "metrics/diagnosis_gates.h"
#include "metrics/run_metrics.h"

namespace aorta::metrics {
namespace {

// Python's str() of the JSON number, as the original prints limits: 12000, 0.5.
std::string limit_text(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

std::string percent(double v) { return fmt::format("{:.2f}%", v * 100.0); }

// The lowest rank's bus bandwidth at the type's largest message size, below the limit.
std::string busbw_message(const char* type, double v, double limit) {
  return fmt::format("Lowest rank {} bus bandwidth {:.2f} GB/s below threshold {} GB/s", type, v, limit_text(limit));
}

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

const ThresholdSpec kCatalogue[] = {
    {"max_avg_iteration_ms", ThresholdKind::kMax, ThresholdUnit::kMs, "avg iteration time", "iteration_time",
     "avg_iteration_time_ms", [](const RunMetrics& r) -> std::optional<double> { return r.avg_iteration_time_ms; },
     kUnbounded,
     [](double v, double limit) {
       return fmt::format("Average iteration time {:.2f}ms exceeds threshold {}ms", v, limit_text(limit));
     },
     nullptr},
    {"min_compute_ratio", ThresholdKind::kMin, ThresholdUnit::kFraction, "compute ratio", "compute_ratio",
     "avg_compute_ratio", [](const RunMetrics& r) -> std::optional<double> { return r.avg_compute_ratio; }, 1.0,
     [](double v, double limit) {
       return fmt::format("Average compute ratio {} below threshold {}", percent(v), percent(limit));
     },
     nullptr},
    {"min_overlap_ratio", ThresholdKind::kMin, ThresholdUnit::kFraction, "overlap ratio", "overlap_ratio",
     "avg_overlap_ratio", [](const RunMetrics& r) -> std::optional<double> { return r.avg_overlap_ratio; }, 1.0,
     [](double v, double limit) {
       return fmt::format("Average overlap ratio {} below threshold {}", percent(v), percent(limit));
     },
     nullptr},
    // std/mean may exceed 1 (one slow rank among fast ones), so no upper bound.
    {"max_time_variance_ratio", ThresholdKind::kMax, ThresholdUnit::kFraction, "time variance", "rank_balance",
     "time_variance_ratio", [](const RunMetrics& r) { return r.time_variance_ratio; }, kUnbounded,
     [](double v, double limit) {
       return fmt::format("Iteration time variance {} exceeds threshold {}", percent(v), percent(limit));
     },
     nullptr},
    // Per-step figures (ProfilerStep#N annotations): not in the original, which only
    // has the whole profiled window above.
    {"max_avg_step_time_ms", ThresholdKind::kMax, ThresholdUnit::kMs, "avg step time", "step_time",
     "avg_step_time_ms",
     [](const RunMetrics& r) -> std::optional<double> {
       return r.steps ? std::optional<double>(r.steps->mean_ms) : std::nullopt;
     },
     kUnbounded,
     [](double v, double limit) {
       return fmt::format("Average step time {:.2f}ms exceeds threshold {}ms", v, limit_text(limit));
     },
     "Average step time not available: the traces have no ProfilerStep annotations"},
    // A coefficient of variation may exceed 1, so no upper bound.
    {"max_step_time_cv", ThresholdKind::kMax, ThresholdUnit::kFraction, "step time CV", "step_balance",
     "step_time_cv",
     [](const RunMetrics& r) -> std::optional<double> {
       return r.steps ? std::optional<double>(r.steps->cv) : std::nullopt;
     },
     kUnbounded,
     [](double v, double limit) {
       return fmt::format("Step time coefficient of variation {} exceeds threshold {}", percent(v), percent(limit));
     },
     "Step time coefficient of variation not available: the traces have no ProfilerStep annotations"},
    // Diagnosis gates (issue 34): off unless configured; when the diagnosis cannot give the
    // figure (too few ranks, no metadata) a configured gate fails rather than passes unseen.
    {"max_rank_compute_slowdown_ratio", ThresholdKind::kMax, ThresholdUnit::kRatio, "rank compute slowdown",
     "rank_compute", "max_rank_compute_slowdown_ratio",
     [](const RunMetrics& r) { return max_rank_compute_slowdown_ratio(r.per_rank); }, kUnbounded,
     [](double v, double limit) {
       return fmt::format("Slowest rank's compute kernels take {:.4f}x the median of the ranks, exceeds threshold {}",
                          v, limit_text(limit));
     },
     "Rank compute slowdown not available: fewer than 3 ranks have compute kernels on a GPU timeline", 1.0},
    {"min_allreduce_busbw_gbps", ThresholdKind::kMin, ThresholdUnit::kGbps, "all-reduce bus bandwidth",
     "allreduce_bandwidth", "min_allreduce_busbw_gbps",
     [](const RunMetrics& r) { return min_busbw_gbps(r.per_rank, "allreduce"); }, kUnbounded,
     [](double v, double limit) { return busbw_message("all-reduce", v, limit); },
     "All-reduce bus bandwidth not available: no all-reduce kernel with its collective metadata in the traces"},
    {"min_allgather_busbw_gbps", ThresholdKind::kMin, ThresholdUnit::kGbps, "all-gather bus bandwidth",
     "allgather_bandwidth", "min_allgather_busbw_gbps",
     [](const RunMetrics& r) { return min_busbw_gbps(r.per_rank, "allgather"); }, kUnbounded,
     [](double v, double limit) { return busbw_message("all-gather", v, limit); },
     "All-gather bus bandwidth not available: no all-gather kernel with its collective metadata in the traces"},
    {"min_reduce_scatter_busbw_gbps", ThresholdKind::kMin, ThresholdUnit::kGbps, "reduce-scatter bus bandwidth",
     "reduce_scatter_bandwidth", "min_reduce_scatter_busbw_gbps",
     [](const RunMetrics& r) { return min_busbw_gbps(r.per_rank, "reduce_scatter"); }, kUnbounded,
     [](double v, double limit) { return busbw_message("reduce-scatter", v, limit); },
     "Reduce-scatter bus bandwidth not available: no reduce-scatter kernel with its collective metadata in the "
     "traces"},
};

}  // namespace

std::span<const ThresholdSpec> threshold_catalogue() { return kCatalogue; }

const ThresholdSpec* find_threshold(std::string_view key) {
  for (const auto& spec : kCatalogue)
    if (key == spec.key) return &spec;
  return nullptr;
}

const char* unit_name(ThresholdUnit unit) {
  switch (unit) {
    case ThresholdUnit::kMs: return "ms";
    case ThresholdUnit::kFraction: return "fraction";
    case ThresholdUnit::kRatio: return "ratio";
    case ThresholdUnit::kGbps: return "GB/s";
  }
  return "";
}

std::string format_limit(const ThresholdSpec& spec, double limit) {
  const bool bare = spec.unit == ThresholdUnit::kFraction || spec.unit == ThresholdUnit::kRatio;
  return bare ? limit_text(limit) : limit_text(limit) + " " + unit_name(spec.unit);
}

std::string format_actual(const ThresholdSpec& spec, double actual) {
  const bool bare = spec.unit == ThresholdUnit::kFraction || spec.unit == ThresholdUnit::kRatio;
  return bare ? fmt::format("{:.4f}", actual) : fmt::format("{:.2f} {}", actual, unit_name(spec.unit));
}

}  // namespace aorta::metrics
