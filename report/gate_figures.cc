#include "report/gate_figures.h"

#include <fmt/format.h>

#include "metrics/threshold_catalogue.h"

namespace aorta::report {
namespace {

using metrics::MetricUnit;

// A limit as configured, scaled into the cell's unit: 0.99 -> "99" (10 significant
// digits drop the float noise of 0.99 * 100 and keep every digit a file can hold).
std::string exact(double v) { return fmt::format("{:.10g}", v); }

}  // namespace

std::string gate_actual_text(double actual, std::optional<MetricUnit> unit) {
  if (!unit) return fmt::format("{:.6g}", actual);
  switch (*unit) {
    case MetricUnit::kFraction: return fmt::format("{:.2f}%", actual * 100);
    case MetricUnit::kRatio: return fmt::format("{:.4f}x", actual);
    case MetricUnit::kMs: return fmt::format("{:.3f} ms", actual);
    case MetricUnit::kUs: return fmt::format("{:.3f} ms", actual / 1000);
    case MetricUnit::kCount: return fmt::format("{:.6g}", actual);
    default: return fmt::format("{:.2f} {}", actual, metrics::unit_name(*unit));
  }
}

std::string gate_limit_text(double limit, std::optional<MetricUnit> unit) {
  if (!unit) return metrics::limit_text(limit);
  switch (*unit) {
    case MetricUnit::kFraction: return exact(limit * 100) + "%";
    case MetricUnit::kRatio: return metrics::limit_text(limit) + "x";
    case MetricUnit::kUs: return exact(limit / 1000) + " ms";
    case MetricUnit::kCount: return metrics::limit_text(limit);
    default: return metrics::limit_text(limit) + " " + metrics::unit_name(*unit);
  }
}

}  // namespace aorta::report
