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
// milliseconds; a fraction (0.5 = 50%); a ratio of two like values (1.15 = 15% more); GB/s
enum class ThresholdUnit { kMs, kFraction, kRatio, kGbps };

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
  double min_limit = 0;  // a limit below this is a config error (a slowdown ratio below 1 always fails)
};

// All keys, in the order reports list them.
std::span<const ThresholdSpec> threshold_catalogue();
// The row for `key`, or nullptr for an unknown key.
const ThresholdSpec* find_threshold(std::string_view key);

// "ms", "fraction", "ratio" or "GB/s".
const char* unit_name(ThresholdUnit unit);
// A limit as configured, in the gate's unit: 60000 -> "60000 ms", 0.5 -> "0.5",
// 0.001 -> "0.001", 40 -> "40 GB/s" (never rounded: a rounded limit would misstate the gate).
std::string format_limit(const ThresholdSpec& spec, double limit);
// A measured value: "835.25 ms", "0.4321", "1.1443", "41.20 GB/s".
std::string format_actual(const ThresholdSpec& spec, double actual);

}  // namespace aorta::metrics
