// What the reports are written from: a plain copy of one run's stage outcomes,
// filled by the listener as tests end. Writers only read it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace aorta::report {

struct SubTestRecord {
  std::string label;  // [threshold] (metric=max_avg_iteration_ms), [trace collection] (host=n1)
  bool passed = true;
  std::string message;           // failure text
  std::optional<double> actual;  // thresholds: measured value
  std::optional<double> limit;   // thresholds: gate
  std::string gate;              // max | min

  // "<label>: passed|failed[ (actual A, max L)][ - message]", the property value.
  std::string summary() const;
};

struct StageResult {
  std::string name;     // test_launch_container ...
  std::string outcome;  // passed | failed | skipped
  double seconds = 0;
  std::string skip_reason;
  std::vector<std::string> failures;  // the stage's own failure messages
  std::vector<std::string> log;       // captured notes of the stage
  std::vector<SubTestRecord> subtests;
  std::string label;  // the Run Deck's lifecycle label (container_launch ...)
};

struct RunRecord {
  std::string suite;      // aorta_single | aorta_distributed
  std::string run_id;
  std::string timestamp;  // ISO 8601 start, local time
  std::string hostname;
  double seconds = 0;
  std::vector<StageResult> stages;  // run order
  std::string deck_link;            // relative link to the Run Deck, when one was written

  int failed_stages() const;
  int skipped_stages() const;
  int subtest_count() const;
  int failed_subtests() const;
};

// The stage with every text (failures, notes, skip reason, sub-test labels and
// messages) as valid UTF-8: node output and file names are bytes, and one invalid
// sequence would break every report written from the record.
StageResult valid_text(StageResult stage);

}  // namespace aorta::report
