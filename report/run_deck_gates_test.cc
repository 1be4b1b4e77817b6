// Issue 44, 1 and 3: the deck shows the verdicts the thresholds stage recorded, never
// gates of its own; it finds that stage by what it is (its sub-tests are thresholds),
// and its lifecycle labels are the stages its caller gives.
#include "report/run_deck.h"

#include <gtest/gtest.h>

#include "tests/deck_fixture.h"

namespace aorta::report {
namespace {

using Fixture = aorta::testing::DeckFixture;

// A recorded verdict that the result alone would not give (11 ms is inside 20 ms):
// every section shows the record's.
TEST(RunDeckGates, EverySectionShowsTheRecordedVerdict) {
  Fixture f;
  DeckInput in = f.input();
  StageResult& gate = f.run.stages[1];
  ASSERT_EQ(gate.subtests.at(0).value, "max_avg_iteration_ms");
  gate.subtests[0].outcome = job::Outcome::kFailed;
  gate.subtests[0].message = "as the stage recorded it";
  const auto deck = run_deck_json(in);
  EXPECT_EQ(deck["overall_status"], "fail");
  EXPECT_EQ(deck["gate_matrix"]["iteration_time"]["status"], "fail");
  EXPECT_EQ(deck["gate_matrix"]["iteration_time"]["reason"], "as the stage recorded it");
  EXPECT_EQ(deck["threshold_verdicts"][0]["status"], "fail");
  EXPECT_EQ(deck["threshold_verdicts"][0]["message"], "as the stage recorded it");
  EXPECT_EQ(deck["threshold_specs"]["training.avg_iteration_time_ms"]["verdict"], "fail");
  EXPECT_EQ(deck["run_card_display"].dump().find("PASS · 11.00 ms"), std::string::npos);
  // A configured threshold the stage recorded no verdict for was not evaluated.
  gate.subtests.erase(gate.subtests.begin());
  EXPECT_EQ(run_deck_json(in)["gate_matrix"]["iteration_time"]["status"], "not evaluated");
  EXPECT_EQ(run_deck_json(in)["overall_status"], "pass");
}

// The thresholds stage under another test name is still the gate: found by its plan.
TEST(RunDeckGates, TheThresholdStageIsFoundByItsSubTestsKind) {
  Fixture f;
  DeckInput in = f.input();
  stages::StageSpec renamed = stages::kValidateThresholds;
  renamed.test_name = "test_gates";
  renamed.label = "gates";
  in.lifecycle = {&stages::kRunBenchmark, &renamed};
  f.run.stages[1].name = f.run.stages[1].stage = "test_gates";
  EXPECT_EQ(threshold_stage(in), &f.run.stages[1]);
  EXPECT_EQ(threshold_state(in), "enforced");
  // Without a stage of threshold sub-tests in the lifecycle, no gate ran.
  in.lifecycle = {&stages::kRunBenchmark};
  EXPECT_EQ(threshold_stage(in), nullptr);
  EXPECT_EQ(threshold_state(in), "not evaluated");
}

TEST(RunDeckGates, TheLifecycleLabelsAreTheStagesGiven) {
  Fixture f;
  DeckInput in = f.input();
  in.lifecycle = {&stages::kRunBenchmark, &stages::kValidateThresholds, &stages::kTeardown};
  const auto deck = run_deck_json(in);
  EXPECT_EQ(deck["report"]["lifecycle_labels"].dump(), R"(["benchmark","thresholds","teardown"])");
  EXPECT_EQ(deck["datasets"]["training_sweep"]["session_lifecycle_labels"], deck["report"]["lifecycle_labels"]);
}

}  // namespace
}  // namespace aorta::report
