// A test's outcome and a stage's sub-tests (one per threshold, one per collecting
// node), typed from the stage body to every report (lib/stages/stage.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "metrics/gate_subject.h"
#include "metrics/gate_terms.h"

namespace aorta::job {

enum class Outcome { kPassed, kFailed, kSkipped };

// "passed" | "failed" | "skipped": the words reports and the JSON use.
const char* outcome_name(Outcome outcome);

enum class SubTestKind { kThreshold, kTraceCollection };

// One sub-test of a stage. Each is also a gtest test of its own
// (<stage>/<test_name_part(value)>), so gtest's printers, filters and listeners see it.
// Every field has a default, so a designated initializer may name only what it sets.
struct SubTest {
  SubTestKind kind = SubTestKind::kThreshold;
  std::string key{};    // metric | host | artifact
  std::string value{};  // the metric key, host name or artifact name
  Outcome outcome = Outcome::kPassed;
  std::string message{};          // failure text, or why it was only recorded
  std::optional<double> actual{};  // thresholds: the measured value
  std::optional<double> limit{};   // thresholds: the gate
  std::optional<metrics::ThresholdKind> gate{};  // thresholds: max | min
  std::optional<metrics::MetricUnit> unit{};     // thresholds: the gated metric's unit
  std::optional<metrics::GateSubject> subject{};  // per-rank gates: the rank the actual is of
  // enforce_thresholds: false: measured and shown, never gated (its outcome is kSkipped).
  // A skipped sub-test without it (an interrupted node's collection) was only skipped.
  bool record_only = false;

  bool passed() const { return outcome != Outcome::kFailed; }
  // "[threshold] (metric=max_avg_iteration_ms)", the original's sub-test label.
  std::string label() const;
  // "passed" | "failed" | "skipped" | "recorded" (record_only): what the reports call it.
  std::string verdict() const;
  // "<label>: <verdict>[ (actual A, max L)][ - message]", the property value.
  std::string summary() const;
  // "SUBPASS <summary>" | "SUBFAIL <summary>", the original's console line (a recorded
  // gate passes); "SUBSKIP <summary>" for a skipped one, pytest-subtests' word (CVS
  // makes no skipped sub-test).
  std::string line() const;
  // "actual 835.2 ms, max 60000 ms", "actual 71.5701%, min 99%" (empty without a value).
  std::string measured() const;
  // One of its figures as people read it: "835.2 ms", a fraction in % ("71.5701%").
  std::string figure(double v) const;
  // The unit its figures print with: "ms", "GB/s"; "" for a fraction, a ratio or none.
  std::string unit_text() const;
  // How far a gate's value is inside its limit, in its unit (negative: by how much it
  // failed); nothing without a value, limit and gate.
  std::optional<double> margin() const;
  // "actual 835.2 ms, max 60000 ms, margin 59164.8 ms (98.61% of the limit)" ("margin
  // -3 ms" when failed), what a gate's testcase shows in its system-out, where Jenkins
  // shows a passing gate's figures.
  std::string measured_with_margin() const;
};

// The gtest-name form of a value: every character outside [A-Za-z0-9_.] made '_'
// (gtest filters give '-', ':', '*', '?' meaning).
std::string test_name_part(const std::string& value);

}  // namespace aorta::job
