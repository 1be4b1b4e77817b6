// What the reports are written from: a plain copy of one run's stage outcomes,
// filled by the listener as tests end. Writers only read it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/version.h"
#include "job/outcome.h"

namespace aorta::report {

// One gtest test: a lifecycle stage (test_collect_traces), or one sub-test of a
// stage registered as a test of its own (test_validate_thresholds/min_compute_ratio).
struct StageResult {
  std::string name;  // the gtest test name
  job::Outcome outcome = job::Outcome::kPassed;
  double seconds = 0;
  std::string skip_reason;
  std::vector<std::string> failures;  // the stage's own failure messages
  std::vector<std::string> log;       // captured notes of the stage
  std::vector<job::SubTest> subtests; // a stage's sub-tests (also the original's cvs_aorta_subtest properties)
  std::string label;                  // the Run Deck's lifecycle label (container_launch ...)
  std::optional<job::SubTest> subtest;  // set: this test is that sub-test of the stage named `stage`
  std::string stage;                    // the stage test this belongs to (its own name for a stage)

  bool is_subtest() const { return subtest.has_value(); }
};

struct RunRecord {
  std::string suite;      // aorta_single | aorta_distributed
  std::string run_id;
  std::string timestamp;  // ISO 8601 start, local time
  std::string hostname;
  double seconds = 0;
  std::vector<StageResult> stages;  // every test, in run order (sub-tests after their stage)
  std::string deck_link;            // relative link to the Run Deck, when one was written
  std::vector<std::string> node_log_links;  // relative links to the nodes' phase logs copied beside the report
  // The build that made the reports; a field so golden-file tests can fix it.
  std::string version = aorta::version();
  std::string commit = aorta::git_commit();

  // Counts over every test (stage or sub-test): what JUnit's header and the
  // summaries say, so they always equal the testcases written.
  int count(job::Outcome outcome) const;
  // Counts over the sub-test tests only.
  int subtest_count() const;
  int failed_subtests() const;
};

// The stage with every text (failures, notes, skip reason, sub-test labels and
// messages) as valid UTF-8: node output and file names are bytes, and one invalid
// sequence would break every report written from the record.
StageResult valid_text(StageResult stage);

// The record of a sub-test's own gtest test, <stage_test>/<name_part>: its outcome,
// the measured value as its log, its message as failure or skip reason.
StageResult subtest_result(const std::string& stage_test, const std::string& name_part, const std::string& label,
                           const job::SubTest& sub);

}  // namespace aorta::report
