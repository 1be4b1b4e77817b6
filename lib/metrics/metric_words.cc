#include "metrics/metric_words.h"

#include <fmt/format.h>

#include "metrics/run_metrics.h"

namespace aorta::metrics {
namespace {

std::string window(const std::string& steps, bool one) {
  return fmt::format("the profiled window of {} step{}", steps, one ? "" : "s");
}

std::string window(std::optional<std::uint64_t> steps) {
  if (!steps) return "the whole profiled window";
  return window(std::to_string(*steps), *steps == 1);
}

std::optional<std::uint64_t> step_count(const RunMetrics& run) {
  return run.steps ? std::optional<std::uint64_t>(run.steps->step_count) : std::nullopt;
}

}  // namespace

std::string iteration_time_label(std::optional<std::uint64_t> steps) {
  return fmt::format("{} ({})", kIterationTime, window(steps));
}

std::string iteration_time_label(const std::string& steps) {
  return fmt::format("{} ({})", kIterationTime, window(steps, false));
}

std::string iteration_time_label(const RunMetrics& run) { return iteration_time_label(step_count(run)); }

std::string iteration_time_note(const RunMetrics& run) {
  if (!run.steps) return window(std::nullopt);
  return fmt::format("{}; {} {:.3f} ms", window(run.steps->step_count), kPerStepTime, run.steps->mean_ms);
}

}  // namespace aorta::metrics
