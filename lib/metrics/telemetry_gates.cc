#include "metrics/telemetry_gates.h"

#include "metrics/run_metrics.h"
#include "metrics/telemetry_findings.h"

namespace aorta::metrics {
namespace {

using telemetry::GpuTelemetry;

// A GPU's figure, or nothing when it does not report what the figure needs.
using GpuFigure = std::optional<double> (*)(const GpuTelemetry&);

std::optional<double> uncorrectable(const GpuTelemetry& g) {
  return g.ecc ? std::optional(g.ecc->uncorrectable) : std::nullopt;
}
std::optional<double> throttled(const GpuTelemetry& g) {
  return g.samples > 0 ? std::optional(throttled_share(g)) : std::nullopt;
}

GateSubject subject_of(const GpuTelemetry& g) { return {g.host, std::nullopt, g.gpu, true}; }

// The GPU of the largest figure (the first of equals, cluster order).
const GpuTelemetry* largest(const RunMetrics& run, GpuFigure figure) {
  const GpuTelemetry* top = nullptr;
  if (!run.telemetry) return top;
  for (const GpuTelemetry& g : run.telemetry->gpus)
    if (const auto v = figure(g); v && (!top || *v > *figure(*top))) top = &g;
  return top;
}

std::optional<double> largest_value(const RunMetrics& run, GpuFigure figure) {
  const GpuTelemetry* g = largest(run, figure);
  return g ? figure(*g) : std::nullopt;
}

std::optional<GateSubject> largest_subject(const RunMetrics& run, GpuFigure figure) {
  const GpuTelemetry* g = largest(run, figure);
  return g ? std::optional(subject_of(*g)) : std::nullopt;
}

}  // namespace

std::optional<double> max_gpu_uncorrectable_errors(const RunMetrics& run) { return largest_value(run, uncorrectable); }
std::optional<GateSubject> gpu_with_most_uncorrectable_errors(const RunMetrics& run) {
  return largest_subject(run, uncorrectable);
}

std::optional<double> max_gpu_throttled_share(const RunMetrics& run) { return largest_value(run, throttled); }
std::optional<GateSubject> most_throttled_gpu(const RunMetrics& run) { return largest_subject(run, throttled); }

std::optional<double> pcie_links_downgraded(const RunMetrics& run) {
  if (!run.telemetry) return std::nullopt;
  std::optional<double> count;
  for (const GpuTelemetry& g : run.telemetry->gpus)
    if (g.link) count = count.value_or(0) + (g.link->downgraded ? 1 : 0);
  return count;
}

std::optional<GateSubject> first_downgraded_link(const RunMetrics& run) {
  if (run.telemetry)
    for (const GpuTelemetry& g : run.telemetry->gpus)
      if (g.link && g.link->downgraded) return subject_of(g);
  return std::nullopt;
}

}  // namespace aorta::metrics
