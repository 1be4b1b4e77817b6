// What the reports are written from: a plain copy of one run's stage outcomes,
// filled by the listener as tests end. Writers only read it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/version.h"
#include "job/outcome.h"
#include "stages/stage.h"

namespace aorta::report {

// One gtest test's record, the stage body's own result (lib/stages/stage.h).
using StageResult = stages::StageResult;
using stages::subtest_result;

struct RunRecord {
  std::string suite;      // aorta_single | aorta_distributed
  std::string run_id;
  std::string timestamp;  // ISO 8601 start, local time
  std::string hostname;
  double seconds = 0;
  // The run's top level in run order: each stage's record, which holds its sub-tests'
  // own tests (StageResult::tests), and the records the listener adds (fixture_teardown,
  // run_interrupted). A sub-test's test whose stage left no record sits here too.
  std::vector<StageResult> stages;
  std::string interrupted;  // the signal that interrupted the run (SIGINT ...), empty when none
  // The build that made the reports; a field so golden-file tests can fix it.
  std::string version = aorta::version();
  std::string commit = aorta::git_commit();

  // gtest's flat list of tests, a view of the tree in run order: each record, then its
  // sub-tests' tests. What JUnit's testcases, the text log and the counts show.
  std::vector<const StageResult*> tests() const;
  // The stage-level records: the top level but for a sub-test's test left without its stage.
  std::vector<const StageResult*> stage_tests() const;
  // The latest test of that gtest name, anywhere in the tree (null: none).
  StageResult* find_test(const std::string& name);

  // Counts over every test (stage or sub-test): what JUnit's header and the
  // summaries say, so they always equal the testcases written.
  int count(job::Outcome outcome) const;
  // Counts over the stages only (one entry each on the HTML page, as the original's).
  int stage_count(job::Outcome outcome) const;
  // Counts over the sub-test tests only.
  int subtest_count() const;
  int failed_subtests() const;
};

}  // namespace aorta::report
