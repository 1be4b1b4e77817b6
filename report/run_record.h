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
  std::vector<StageResult> stages;  // every test, in run order (sub-tests after their stage)
  std::string interrupted;  // the signal that interrupted the run (SIGINT ...), empty when none
  // The build that made the reports; a field so golden-file tests can fix it.
  std::string version = aorta::version();
  std::string commit = aorta::git_commit();

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
