// The gates, as one list: a view over the metric catalogue's gated rows (a gate is
// the `gate` column of its metric's row, metric_catalogue.cc). The loader validates
// threshold files against it, check_thresholds evaluates with it and the Run Deck
// shows it.
//
// Only standard headers here (and metric_catalogue.h, which has only those): lib/config
// includes this file, and lib/metrics includes lib/config, so RunMetrics is
// forward-declared to keep the two acyclic.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "metrics/metric_catalogue.h"

namespace aorta::metrics {

struct RunMetrics;

// A gate with the metric it gates: the gate column's fields, and the unit and value of its row.
struct ThresholdSpec : GateSpec {
  const char* metric;     // the gated metric's key, as reports name it: "avg_iteration_time_ms"
  const MetricSpec* row;  // that metric's row
  MetricUnit unit() const { return row->unit; }
  // The value gated, in unit(); nothing when it cannot be computed (variance of a zero mean).
  std::optional<double> value(const RunMetrics& run) const { return row->value(run); }
};

// Every gate, in the order reports list them (GateSpec::position).
std::span<const ThresholdSpec> threshold_catalogue();
// The gate of threshold key `key`, or nullptr for an unknown key.
const ThresholdSpec* find_threshold(std::string_view key);

// A limit as the original prints it, Python's str() of the JSON number: 12000, 0.5.
std::string limit_text(double limit);
// A limit as configured, in the gate's unit: 60000 -> "60000 ms", 0.5 -> "0.5",
// 0.001 -> "0.001", 40 -> "40 GB/s" (never rounded: a rounded limit would misstate the gate).
std::string format_limit(const ThresholdSpec& spec, double limit);
// A measured value: "835.25 ms", "0.4321", "1.1443", "41.20 GB/s".
std::string format_actual(const ThresholdSpec& spec, double actual);

}  // namespace aorta::metrics
