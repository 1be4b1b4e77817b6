// The interrupt's record is decided by when the signal came, never by what texts say.
#include "report/interrupt_watch.h"

#include <gtest/gtest.h>

namespace aorta::report {
namespace {

using job::Outcome;

TEST(InterruptWatch, NoSignalNoRecord) {
  InterruptWatch watch;
  watch.test_started(false);
  watch.stage_ended(false, Outcome::kFailed);
  EXPECT_FALSE(watch.late_record("").has_value());
}

// The stage running when the signal came failed: it was stopped, and its failure is
// the interruption's one failure, whatever its text.
TEST(InterruptWatch, TheStageItStoppedStandsForIt) {
  InterruptWatch watch;
  watch.test_started(false);
  watch.stage_ended(false, Outcome::kPassed);
  watch.test_started(false);
  watch.stage_ended(true, Outcome::kFailed);
  watch.test_started(true);
  watch.stage_ended(true, Outcome::kSkipped);
  EXPECT_FALSE(watch.late_record("SIGINT").has_value());
}

// Between stages: the stage running then passed, those after it were not started.
TEST(InterruptWatch, BetweenStagesTheRecordCountsTheStagesNotStarted) {
  InterruptWatch watch;
  watch.test_started(false);
  watch.stage_ended(true, Outcome::kPassed);
  for (int i = 0; i < 2; ++i) {
    watch.test_started(true);
    watch.stage_ended(true, Outcome::kSkipped, true);
  }
  // Gated by the stage the signal kept from starting, or skipped by configuration: not
  // kept from starting by the signal itself, so not counted (the count names those).
  watch.test_started(true);
  watch.stage_ended(true, Outcome::kSkipped);
  watch.test_started(true);
  watch.stage_ended(true, Outcome::kPassed);  // teardown still runs
  auto late = watch.late_record("SIGTERM");
  ASSERT_TRUE(late.has_value());
  EXPECT_EQ(late->name, "run_interrupted");
  EXPECT_EQ(late->outcome, Outcome::kFailed);
  EXPECT_EQ(late->failures, std::vector<std::string>{
                                "the run was interrupted by SIGTERM between its stages: 2 not started; its exit status is 1"});
  EXPECT_FALSE(watch.late_record("SIGTERM").has_value()) << "made once";
}

// A failure before the signal is not the interruption's, even one whose text names it.
TEST(InterruptWatch, AFailureBeforeTheSignalDoesNotStandForIt) {
  InterruptWatch watch;
  watch.test_started(false);
  watch.stage_ended(false, Outcome::kFailed);
  auto late = watch.late_record("SIGHUP");
  ASSERT_TRUE(late.has_value());
  EXPECT_EQ(late->failures.at(0),
            "the run was interrupted by SIGHUP after its stages had run (while its reports were written); its exit "
            "status is 1");
}

}  // namespace
}  // namespace aorta::report
