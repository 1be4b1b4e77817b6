// A lifecycle stage as one module: lib/stages/<stage>.cc holds its body and its
// StageSpec, and suites/suites.cc lists the specs each suite runs, in order. The
// body returns the one StageResult that every report is written from.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "config/variant.h"
#include "job/node_exec.h"
#include "job/outcome.h"
#include "job/phase.h"
#include "job/run_state.h"

namespace aorta::stages {

// One gtest test: a lifecycle stage (test_collect_traces), or one sub-test of a
// stage registered as a test of its own (test_validate_thresholds/min_compute_ratio),
// held in its stage's record (`tests`): the run's record is a tree of them.
// A body fills failures, skip_reason, log and subtests; the fixture adds the rest.
struct StageResult {
  std::string name;   // the gtest test name
  std::string stage;  // the stage test this belongs to (its own name for a stage)
  std::string label;  // the Run Deck's lifecycle label (container_launch ...)
  job::Outcome outcome = job::Outcome::kPassed;
  double seconds = 0;
  std::string skip_reason;              // set: skipped (by configuration, gating, or filter)
  bool kept_from_starting = false;      // skipped because a signal came before it started (starts_work)
  std::vector<std::string> failures;    // any failure fails the stage
  std::vector<std::string> log;         // the stage's notes: its Full Log page, JUnit <system-out>
  std::vector<job::SubTest> subtests;   // what a stage's body found (also the original's cvs_aorta_subtest properties)
  std::optional<job::SubTest> subtest;  // set: this test is that sub-test's own, of the stage named `stage`
  std::vector<StageResult> tests;       // a stage's sub-tests' own tests, in run order (each sets `subtest`)

  bool failed() const { return !failures.empty(); }
  bool skipped() const { return !skip_reason.empty(); }
  // What the body's texts say: failed beats skipped beats passed.
  job::Outcome verdict() const {
    return failed() ? job::Outcome::kFailed : skipped() ? job::Outcome::kSkipped : job::Outcome::kPassed;
  }
};

// The record of a sub-test's own gtest test, `test_name` (subtest_names): its outcome,
// the measured value as its log, its message as failure or skip reason.
StageResult subtest_result(const std::string& stage_test, const std::string& test_name, const std::string& label,
                           const job::SubTest& sub);

// A planned sub-test's own gtest test: the SubTest::value it reports and its test name.
struct SubTestName {
  std::string value;
  std::string name;  // "test_collect_traces/n_1_2"
};

// The one place a sub-test's gtest name is made (registration, the fixture and the
// record all take it from here): <stage_test>/<job::test_name_part(value)>, one per
// value in order; should two values make the same part (hosts n-1 and n_1), the later
// gets _2, _3, ... so each keeps a test of its own.
std::vector<SubTestName> subtest_names(const std::string& stage_test, const std::vector<std::string>& values);

// The failures a stage adds for its failed sub-tests (of `key`) whose own test the
// filter left out: "<value>: <message>", the one place each is still shown (issue 31,
// 6: said once, never lost). `tests`: the stage's planned sub-tests; `selected`: whether
// the run runs the test of that name. A failed value without a planned test counts as left out.
std::vector<std::string> unselected_subtest_failures(const std::vector<job::SubTest>& subtests, const std::string& key,
                                                     const std::vector<SubTestName>& tests,
                                                     const std::function<bool(const std::string&)>& selected);

// The stage's one failure for its failed sub-tests: how many and their names, not
// their messages, which each sub-test's own test says (issue 31, 6: one failure, said
// once). "2 gates failed: max_avg_iteration_ms, min_overlap_ratio". Empty: none failed.
std::string failed_subtests_line(const std::vector<job::SubTest>& subtests, const std::string& what,
                                 const std::string& whats);

// CVS's one line for a failed stage, which its triage rules and log scrapers key on:
// "Following FAILURES seen - ['a', 'b']", the list as Python prints it (quotes and
// escapes included), so each failure stays on the one line.
std::string following_failures_line(const std::vector<std::string>& failures);

struct StageContext {
  job::NodeExec& exec;
  job::RunState& state;
  job::ProgressFn log;
  bool prior_failure = false;            // an earlier stage failed (the report says so)
  job::ProgressFn training_output = {};  // node 0's training output, line by line, while the benchmark runs
  std::span<const StageResult> earlier = {};  // the run's records so far (the report's verdict reads them)
};

// A stage body: runs on the cluster through ctx and returns what happened.
using StageBody = StageResult (*)(StageContext& ctx);

// The sub-tests a stage reports, each also a gtest test of its own
// (<stage>/<test_name_part(value)>), planned before the run from the config.
struct SubTestPlan {
  job::SubTestKind kind;
  const char* key;  // the SubTest::key of each: "host" | "metric"
  std::vector<std::string> (*values)(const config::Variant& v, const std::vector<std::string>& hosts);
};

struct StageSpec {
  const char* test_name;  // test_launch_container ...
  const char* label;      // container_launch ... (the Run Deck's lifecycle labels)
  StageBody body;
  bool starts_work = false;  // starts new work on the cluster: not begun after SIGINT/SIGTERM
  // Whether the stage still runs after an earlier failure, given what the run has
  // (null: never).
  bool (*runs_after_failure)(const job::RunState& state) = nullptr;
  std::optional<SubTestPlan> subtests = std::nullopt;
  // Removes what the run started: run at the suite's end when its test did not run.
  bool tears_down = false;
};

// The skip reason of every stage gated by an earlier failure, as the guide words it.
inline constexpr const char* kSkipPriorFailure = "a prior lifecycle stage failed";
// The skip reason of a stage that an interrupt kept from starting, before the signal's name.
inline constexpr const char* kNotStartedByInterrupt = "not started: the run was interrupted by ";

}  // namespace aorta::stages
