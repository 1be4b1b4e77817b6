// Every threshold key the suite knows, in one table: the loader validates against
// it, check_thresholds evaluates with it and the Run Deck shows it. Adding a key is
// one row in threshold_catalogue.cc.
//
// Only standard headers here: lib/config includes this file, and lib/metrics
// includes lib/config, so RunMetrics is forward-declared to keep the two acyclic.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace aorta::metrics {

struct RunMetrics;

enum class ThresholdKind { kMax, kMin };     // the actual must be <= / >= the limit
enum class ThresholdUnit { kMs, kFraction };  // milliseconds, or a ratio (0.5 = 50%)

struct ThresholdSpec {
  const char* key;      // as in a threshold file's expected_results
  ThresholdKind kind;
  ThresholdUnit unit;
  const char* display;  // short name for people: "avg iteration time"
  const char* tier;     // the Run Deck's gate_matrix entry
  const char* metric;   // the RunMetrics value it gates, as reports name it
  // The value gated, in `unit`; nothing when it cannot be computed (variance of a zero mean).
  std::optional<double> (*value)(const RunMetrics&);
  double max_limit;     // a limit above this is a config error (infinity: no bound)
  // The original's failure text, byte for byte.
  std::string (*message)(double actual, double limit);
  // Why a configured gate fails when `value` is empty; nullptr: an empty value is
  // not checked and passes (the original's variance of a zero mean).
  const char* unavailable;
};

// All keys, in the order reports list them.
std::span<const ThresholdSpec> threshold_catalogue();
// The row for `key`, or nullptr for an unknown key.
const ThresholdSpec* find_threshold(std::string_view key);

// "ms" or "fraction".
const char* unit_name(ThresholdUnit unit);
// A limit as configured, in the gate's unit: 60000 -> "60000 ms", 0.5 -> "0.5",
// 0.001 -> "0.001" (never rounded: a rounded limit would misstate the gate).
std::string format_limit(const ThresholdSpec& spec, double limit);
// A measured value: "835.25 ms", "0.4321".
std::string format_actual(const ThresholdSpec& spec, double actual);

}  // namespace aorta::metrics
