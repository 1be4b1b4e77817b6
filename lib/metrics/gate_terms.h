// A metric's unit and a gate's direction: the two enums that the metric catalogue,
// the threshold checks and a stage's sub-tests (lib/job/outcome.h) share, and their words.
//
// No includes: lib/config and lib/job include this file, below the rest of lib/metrics.
#pragma once

namespace aorta::metrics {

// a fraction: 0.5 = 50%; a ratio of two like values: 1.15 = 15% more
enum class MetricUnit { kMs, kUs, kFraction, kCount, kGb, kRatio, kGbps };

// A gate: the actual must be <= (kMax) or >= (kMin) the limit.
enum class ThresholdKind { kMax, kMin };

// "ms", "us", "fraction", "count", "GB", "ratio" or "GB/s".
constexpr const char* unit_name(MetricUnit unit) {
  switch (unit) {
    case MetricUnit::kMs: return "ms";
    case MetricUnit::kUs: return "us";
    case MetricUnit::kFraction: return "fraction";
    case MetricUnit::kCount: return "count";
    case MetricUnit::kGb: return "GB";
    case MetricUnit::kRatio: return "ratio";
    case MetricUnit::kGbps: return "GB/s";
  }
  return "";
}

// The unit a gate's figures print with: "ms", "GB/s"; "" for a fraction or a ratio,
// which print bare ("actual 0.75, min 0.5").
constexpr const char* gate_unit_text(MetricUnit unit) {
  return unit == MetricUnit::kFraction || unit == MetricUnit::kRatio ? "" : unit_name(unit);
}

// "max" | "min", as the threshold files' keys begin and the reports spell a gate.
constexpr const char* kind_name(ThresholdKind kind) { return kind == ThresholdKind::kMax ? "max" : "min"; }

}  // namespace aorta::metrics
