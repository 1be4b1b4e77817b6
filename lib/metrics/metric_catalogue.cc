#include "metrics/metric_catalogue.h"

#include <cstdint>

#include <fmt/format.h>

#include "metrics/diagnosis_gates.h"
#include "metrics/metric_words.h"
#include "metrics/run_metrics.h"
#include "metrics/telemetry_gates.h"
#include "metrics/threshold_catalogue.h"

namespace aorta::metrics {
namespace {

using Value = std::optional<double>;

// A per-step figure: nothing when the traces have no ProfilerStep annotations.
template <typename F>
Value from_steps(const RunMetrics& r, F field) {
  return r.steps ? Value(static_cast<double>(field(*r.steps))) : std::nullopt;
}

constexpr unsigned kHuman = kInSummary | kInHtml | kInCompare;  // the averages people compare

std::string percent(double v) { return format_ratio(v, RatioStyle::kPercent); }

// The lowest rank's bus bandwidth at the type's largest message size, below the limit.
std::string busbw_message(const char* type, double v, double limit) {
  return fmt::format("Lowest rank {} bus bandwidth {:.2f} GB/s below threshold {} GB/s", type, v, limit_text(limit));
}

// In the JSON report's order (reference §4.1, then the per-step figures).
constexpr MetricSpec kCatalogue[] = {
    {"avg_iteration_time_ms", MetricUnit::kMs, Better::kLower,
     [](const RunMetrics& r) -> Value { return r.avg_iteration_time_ms; },
     kInJson | kInCompare | kInDeck, "avg iteration time", nullptr, "Avg iter (ms)", nullptr,
     GateSpec{.key = "max_avg_iteration_ms", .kind = ThresholdKind::kMax, .position = 0, .tier = "iteration_time",
              .display = "avg iteration time", .message = [](double v, double limit) {
                return fmt::format("Average iteration time {:.2f}ms exceeds threshold {}ms", v, limit_text(limit));
              }, .note = iteration_time_note}},
    {"std_iteration_time_us", MetricUnit::kUs, Better::kLower,
     [](const RunMetrics& r) -> Value { return r.std_iteration_time_us; },
     kInJson | kInDeck, "iteration time std across ranks", nullptr, "Iter std across ranks (ms)", nullptr},
    {"min_iteration_time_us", MetricUnit::kUs, Better::kLower,
     [](const RunMetrics& r) -> Value { return r.min_iteration_time_us; },
     kInJson | kInDeck, "min rank iteration time", nullptr, "Min rank iter (ms)", nullptr},
    {"max_iteration_time_us", MetricUnit::kUs, Better::kLower,
     [](const RunMetrics& r) -> Value { return r.max_iteration_time_us; },
     kInJson | kInDeck, "max rank iteration time", nullptr, "Max rank iter (ms)", nullptr},
    {"time_variance_ratio", MetricUnit::kFraction, Better::kLower,
     [](const RunMetrics& r) { return r.time_variance_ratio; },
     kInJson | kInCompare | kInDeck | kInHtml, "time variance ratio", nullptr, "Time variance", nullptr,
     // std/mean may exceed 1 (one slow rank among fast ones), so no upper bound.
     GateSpec{.key = "max_time_variance_ratio", .kind = ThresholdKind::kMax, .position = 3, .tier = "rank_balance",
              .display = "time variance", .message = [](double v, double limit) {
                return fmt::format("Iteration time variance {} exceeds threshold {}", percent(v), percent(limit));
              }}},
    // Not in the JSON report (its schema has no such key): the deck alone shows them.
    {"avg_compute_time_us", MetricUnit::kUs, Better::kLower,
     [](const RunMetrics& r) -> Value { return r.avg_compute_time_us; },
     kInDeck, "avg compute time", nullptr, "Compute (ms)", nullptr},
    {"avg_comm_time_us", MetricUnit::kUs, Better::kLower,
     [](const RunMetrics& r) -> Value { return r.avg_comm_time_us; },
     kInDeck, "avg comm time", nullptr, "Comm time (ms)", nullptr},
    {"avg_compute_ratio", MetricUnit::kFraction, Better::kHigher,
     [](const RunMetrics& r) -> Value { return r.avg_compute_ratio; },
     kInJson | kHuman | kInDeck | kInTable, "avg compute ratio", "compute", "Compute ratio", nullptr,
     GateSpec{.key = "min_compute_ratio", .kind = ThresholdKind::kMin, .position = 1, .tier = "compute_ratio",
              .display = "compute ratio", .message = [](double v, double limit) {
                return fmt::format("Average compute ratio {} below threshold {}", percent(v), percent(limit));
              }, .max_limit = 1.0}},
    {"avg_comm_ratio", MetricUnit::kFraction, Better::kLower,
     [](const RunMetrics& r) -> Value { return r.avg_comm_ratio; },
     kInJson | kHuman | kInDeck | kInTable, "avg comm ratio", kCvsComm, "Comm ratio", nullptr},
    {"avg_overlap_ratio", MetricUnit::kFraction, Better::kHigher,
     [](const RunMetrics& r) -> Value { return r.avg_overlap_ratio; },
     kInJson | kHuman | kInDeck | kInTable, "avg overlap ratio", "overlap", "Overlap ratio", nullptr,
     GateSpec{.key = "min_overlap_ratio", .kind = ThresholdKind::kMin, .position = 2, .tier = "overlap_ratio",
              .display = "overlap ratio", .message = [](double v, double limit) {
                return fmt::format("Average overlap ratio {} below threshold {}", percent(v), percent(limit));
              }, .max_limit = 1.0}},
    // Timeline ranks only.
    {"avg_exposed_comm_ratio", MetricUnit::kFraction, Better::kLower,
     [](const RunMetrics& r) { return r.avg_exposed_comm_ratio; },
     kInJson | kHuman, "avg exposed comm ratio", "exposed comm", nullptr, "avg_comm_ratio"},
    {"peak_memory_gb", MetricUnit::kGb, Better::kLower, [](const RunMetrics& r) { return r.peak_memory_gb; },
     kInJson, "peak memory", nullptr, nullptr, nullptr},
    {"ranks", MetricUnit::kCount, Better::kNeither,
     [](const RunMetrics& r) -> Value { return static_cast<double>(r.per_rank.size()); }, kInJson | kInDeck, "ranks",
     nullptr, "Ranks", nullptr},
    // Per-step figures (ProfilerStep#N annotations), over every rank's steps.
    {"step_count", MetricUnit::kCount, Better::kNeither,
     [](const RunMetrics& r) { return from_steps(r, [](const StepSummary& s) { return s.step_count; }); }, kInJson,
     "steps", nullptr, nullptr, nullptr},
    {"step_samples", MetricUnit::kCount, Better::kNeither,
     [](const RunMetrics& r) { return from_steps(r, [](const StepSummary& s) { return s.samples; }); }, kInJson,
     "rank-steps", nullptr, nullptr, nullptr},
    {"avg_step_time_ms", MetricUnit::kMs, Better::kLower,
     [](const RunMetrics& r) { return from_steps(r, [](const StepSummary& s) { return s.mean_ms; }); },
     kInJson | kInCompare, "avg step time", nullptr, nullptr, nullptr,
     // Not in the original, which gates only the whole profiled window (avg iteration time).
     GateSpec{.key = "max_avg_step_time_ms", .kind = ThresholdKind::kMax, .position = 4, .tier = "step_time",
              .display = "avg step time", .message = [](double v, double limit) {
                return fmt::format("Average step time {:.2f}ms exceeds threshold {}ms", v, limit_text(limit));
              }, .unavailable = "Average step time not available: the traces have no ProfilerStep annotations"}},
    {"median_step_time_ms", MetricUnit::kMs, Better::kLower,
     [](const RunMetrics& r) { return from_steps(r, [](const StepSummary& s) { return s.median_ms; }); },
     kInJson | kInCompare, "median step time", nullptr, nullptr, nullptr},
    {"p95_step_time_ms", MetricUnit::kMs, Better::kLower,
     [](const RunMetrics& r) { return from_steps(r, [](const StepSummary& s) { return s.p95_ms; }); },
     kInJson | kInCompare, "p95 step time", nullptr, nullptr, nullptr},
    {"max_step_time_ms", MetricUnit::kMs, Better::kLower,
     [](const RunMetrics& r) { return from_steps(r, [](const StepSummary& s) { return s.max_ms; }); },
     kInJson | kInCompare, "max step time", nullptr, nullptr, nullptr},
    // A coefficient of variation may exceed 1.
    {"step_time_cv", MetricUnit::kFraction, Better::kLower,
     [](const RunMetrics& r) { return from_steps(r, [](const StepSummary& s) { return s.cv; }); },
     kInJson | kInCompare, "step time CV", nullptr, nullptr, nullptr,
     GateSpec{.key = "max_step_time_cv", .kind = ThresholdKind::kMax, .position = 5, .tier = "step_balance",
              .display = "step time CV", .message = [](double v, double limit) {
                return fmt::format("Step time coefficient of variation {} exceeds threshold {}", percent(v),
                                   percent(limit));
              }, .unavailable = "Step time coefficient of variation not available: the traces have no ProfilerStep "
                                "annotations"}},
    // The diagnosis figures the optional gates read (diagnosis_gates.h); no report lists
    // them yet: the gates' sub-tests and the Run Deck's gate matrix show them. A gate is
    // off unless configured; when the diagnosis cannot give the figure (too few ranks, no
    // metadata) a configured gate fails rather than passes unseen.
    {"max_rank_compute_slowdown_ratio", MetricUnit::kRatio, Better::kLower,
     [](const RunMetrics& r) { return max_rank_compute_slowdown_ratio(r.per_rank); }, 0, "rank compute slowdown",
     nullptr, nullptr, nullptr,
     GateSpec{.key = "max_rank_compute_slowdown_ratio", .kind = ThresholdKind::kMax, .position = 6,
              .tier = "rank_compute", .display = "rank compute slowdown", .message = [](double v, double limit) {
                return fmt::format(
                    "Slowest rank's compute kernels take {:.4f}x the median of the ranks, exceeds threshold {}", v,
                    limit_text(limit));
              }, .unavailable = "Rank compute slowdown not available: fewer than 3 ranks have compute kernels on a GPU "
                                "timeline", .min_limit = 1.0,
              .subject = [](const RunMetrics& r) { return slowest_compute_rank(r.per_rank); }}},
    {"min_allreduce_busbw_gbps", MetricUnit::kGbps, Better::kHigher,
     [](const RunMetrics& r) { return min_busbw_gbps(r.per_rank, "allreduce"); }, 0, "lowest all-reduce bus bandwidth",
     nullptr, nullptr, nullptr,
     GateSpec{.key = "min_allreduce_busbw_gbps", .kind = ThresholdKind::kMin, .position = 7,
              .tier = "allreduce_bandwidth", .display = "all-reduce bus bandwidth",
              .message = [](double v, double limit) { return busbw_message("all-reduce", v, limit); },
              .unavailable = "All-reduce bus bandwidth not available: no all-reduce kernel with its collective "
                             "metadata in the traces",
              .subject = [](const RunMetrics& r) { return lowest_busbw_rank(r.per_rank, "allreduce"); }}},
    {"min_allgather_busbw_gbps", MetricUnit::kGbps, Better::kHigher,
     [](const RunMetrics& r) { return min_busbw_gbps(r.per_rank, "allgather"); }, 0, "lowest all-gather bus bandwidth",
     nullptr, nullptr, nullptr,
     GateSpec{.key = "min_allgather_busbw_gbps", .kind = ThresholdKind::kMin, .position = 8,
              .tier = "allgather_bandwidth", .display = "all-gather bus bandwidth",
              .message = [](double v, double limit) { return busbw_message("all-gather", v, limit); },
              .unavailable = "All-gather bus bandwidth not available: no all-gather kernel with its collective "
                             "metadata in the traces",
              .subject = [](const RunMetrics& r) { return lowest_busbw_rank(r.per_rank, "allgather"); }}},
    {"min_reduce_scatter_busbw_gbps", MetricUnit::kGbps, Better::kHigher,
     [](const RunMetrics& r) { return min_busbw_gbps(r.per_rank, "reduce_scatter"); }, 0,
     "lowest reduce-scatter bus bandwidth", nullptr, nullptr, nullptr,
     GateSpec{.key = "min_reduce_scatter_busbw_gbps", .kind = ThresholdKind::kMin, .position = 9,
              .tier = "reduce_scatter_bandwidth", .display = "reduce-scatter bus bandwidth",
              .message = [](double v, double limit) { return busbw_message("reduce-scatter", v, limit); },
              .unavailable = "Reduce-scatter bus bandwidth not available: no reduce-scatter kernel with its "
                             "collective metadata in the traces",
              .subject = [](const RunMetrics& r) { return lowest_busbw_rank(r.per_rank, "reduce_scatter"); }}},
    // The GPU telemetry's figures (telemetry_gates.h), gated as the diagnosis figures
    // above: off unless configured; without telemetry a configured gate fails.
    {"max_gpu_uncorrectable_errors", MetricUnit::kCount, Better::kLower, max_gpu_uncorrectable_errors, 0,
     "new uncorrectable ECC/RAS errors of a GPU", nullptr, nullptr, nullptr,
     GateSpec{.key = "max_gpu_uncorrectable_errors", .kind = ThresholdKind::kMax, .position = 10, .tier = "gpu_ecc",
              .display = "GPU uncorrectable errors", .message = [](double v, double limit) {
                return fmt::format("{:g} new uncorrectable ECC/RAS errors on a GPU during the run, exceeds threshold {}",
                                   v, limit_text(limit));
              }, .unavailable = "GPU uncorrectable errors not available: no GPU telemetry with ECC/RAS counters (no "
                                "GPU tool on the nodes, or none reports them)",
              .subject = gpu_with_most_uncorrectable_errors}},
    {"max_gpu_throttled_share", MetricUnit::kFraction, Better::kLower, max_gpu_throttled_share, 0,
     "largest throttled share of a GPU", nullptr, nullptr, nullptr,
     GateSpec{.key = "max_gpu_throttled_share", .kind = ThresholdKind::kMax, .position = 11, .tier = "gpu_throttle",
              .display = "GPU throttled share", .message = [](double v, double limit) {
                return fmt::format("A GPU was throttled {} of the window, exceeds threshold {}", percent(v),
                                   percent(limit));
              }, .unavailable = "GPU throttled share not available: no GPU telemetry (no GPU tool on the nodes)",
              .max_limit = 1.0, .subject = most_throttled_gpu}},
    {"max_pcie_links_downgraded", MetricUnit::kCount, Better::kLower, pcie_links_downgraded, 0,
     "GPUs with a PCIe link below its maximum", nullptr, nullptr, nullptr,
     GateSpec{.key = "max_pcie_links_downgraded", .kind = ThresholdKind::kMax, .position = 12, .tier = "pcie_link",
              .display = "PCIe links downgraded", .message = [](double v, double limit) {
                return fmt::format("{:g} GPU(s) with a PCIe link below its maximum, exceeds threshold {}", v,
                                   limit_text(limit));
              }, .unavailable = "PCIe link state not available: no GPU telemetry with the link's speed and width (no "
                                "GPU tool on the nodes, or none reports them)",
              .subject = first_downgraded_link}},
};

bool shown(const MetricSpec& spec, MetricView view) { return (spec.shown_in & view) != 0; }

// `spec`, then the rows of `view` that detail it, each followed by its own details.
void with_details(const MetricSpec& spec, MetricView view, std::vector<const MetricSpec*>& out) {
  out.push_back(&spec);
  for (const auto& detail : kCatalogue)
    if (detail.detail_of && std::string_view(detail.detail_of) == spec.key && shown(detail, view))
      with_details(detail, view, out);
}

}  // namespace

std::span<const MetricSpec> metric_catalogue() { return kCatalogue; }

const MetricSpec* find_metric(std::string_view key) {
  for (const auto& spec : kCatalogue)
    if (key == spec.key) return &spec;
  return nullptr;
}

std::vector<const MetricSpec*> metrics_in(MetricView view) {
  std::vector<const MetricSpec*> rows;
  const bool catalogue_order = view == kInJson || view == kInDeck;
  for (const auto& spec : kCatalogue) {
    if (!shown(spec, view)) continue;
    if (catalogue_order) rows.push_back(&spec);
    else if (!spec.detail_of || !shown(*find_metric(spec.detail_of), view)) with_details(spec, view, rows);
  }
  return rows;
}

std::string deck_key(const MetricSpec& spec) {
  std::string key = spec.key;
  if (spec.unit == MetricUnit::kUs) key.replace(key.size() - 3, 3, "_ms");
  return key;
}

std::optional<double> deck_value(const MetricSpec& spec, const RunMetrics& run) {
  auto v = spec.value(run);
  if (v && spec.unit == MetricUnit::kUs) *v /= 1000;
  return v;
}

std::string format_ratio(std::optional<double> value, RatioStyle style) {
  if (!value) return "-";
  return style == RatioStyle::kPercent ? fmt::format("{:.2f}%", *value * 100) : fmt::format("{:.4f}", *value);
}

std::string format_metric(const MetricSpec& spec, const RunMetrics& run, RatioStyle style) {
  const std::optional<double> v = spec.value(run);
  if (!v || spec.unit == MetricUnit::kFraction) return format_ratio(v, style);
  switch (spec.unit) {
    case MetricUnit::kMs: return fmt::format("{:.3f} ms", *v);
    case MetricUnit::kUs: return fmt::format("{:.3f} us", *v);
    case MetricUnit::kCount: return fmt::format("{}", static_cast<std::uint64_t>(*v));
    case MetricUnit::kRatio: return fmt::format("{:.4f}", *v);
    default: return fmt::format("{:.2f} {}", *v, unit_name(spec.unit));
  }
}

std::string short_list(const RunMetrics& run, MetricView view, RatioStyle style) {
  std::string list;
  for (const MetricSpec* spec : metrics_in(view))
    list += fmt::format("{}{} {}", list.empty() ? "" : ", ", spec->short_label, format_metric(*spec, run, style));
  return list;
}

}  // namespace aorta::metrics
