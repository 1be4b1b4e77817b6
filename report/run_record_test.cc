// The run's record is a tree (stages holding their sub-tests' tests); gtest's flat list
// and every count are views of it.
#include "report/run_record.h"

#include <gtest/gtest.h>

namespace aorta::report {
namespace {

using job::Outcome;

StageResult test(const std::string& name, Outcome outcome) { return {.name = name, .stage = name, .outcome = outcome}; }

StageResult sub(const std::string& stage, const std::string& value, Outcome outcome) {
  return stages::subtest_result(stage, stage + "/" + value, "", {.value = value, .outcome = outcome});
}

RunRecord tree() {
  RunRecord run;
  StageResult collect = test("test_collect_traces", Outcome::kFailed);
  collect.tests = {sub("test_collect_traces", "n1", Outcome::kPassed), sub("test_collect_traces", "n2", Outcome::kFailed)};
  StageResult gate = test("test_validate_thresholds", Outcome::kSkipped);
  gate.tests = {sub("test_validate_thresholds", "max_avg_iteration_ms", Outcome::kSkipped)};
  // A sub-test's test whose stage test was filtered out sits at the top level.
  run.stages = {collect, gate, sub("test_other", "x", Outcome::kFailed), test("test_teardown", Outcome::kPassed)};
  return run;
}

TEST(RunRecord, GtestsFlatListIsEachRecordThenItsSubTestsTestsInRunOrder) {
  const RunRecord run = tree();
  std::vector<std::string> names;
  for (const StageResult* t : run.tests()) names.push_back(t->name);
  EXPECT_EQ(names, (std::vector<std::string>{"test_collect_traces", "test_collect_traces/n1", "test_collect_traces/n2",
                                             "test_validate_thresholds", "test_validate_thresholds/max_avg_iteration_ms",
                                             "test_other/x", "test_teardown"}));
}

TEST(RunRecord, CountsComeFromTheTree) {
  const RunRecord run = tree();
  EXPECT_EQ(run.count(Outcome::kFailed), 3);
  EXPECT_EQ(run.count(Outcome::kPassed), 2);
  EXPECT_EQ(run.count(Outcome::kSkipped), 2);
  EXPECT_EQ(run.stage_tests().size(), 3u);  // not the sub-test left without its stage
  EXPECT_EQ(run.stage_count(Outcome::kFailed), 1);
  EXPECT_EQ(run.subtest_count(), 4);
  EXPECT_EQ(run.failed_subtests(), 2);
}

TEST(RunRecord, FindTestReachesASubTestsTestInItsStage) {
  RunRecord run = tree();
  StageResult* n2 = run.find_test("test_collect_traces/n2");
  ASSERT_NE(n2, nullptr);
  EXPECT_EQ(n2, &run.stages[0].tests[1]);
  EXPECT_EQ(run.find_test("test_teardown"), &run.stages[3]);
  EXPECT_EQ(run.find_test("test_missing"), nullptr);
}

}  // namespace
}  // namespace aorta::report
