// A sub-test's gtest name, made in one place (stages::subtest_names), and the stage's
// failures for the sub-tests a filter left out, which must ask gtest about that name.
#include "stages/stage.h"

#include <set>

#include <gtest/gtest.h>

namespace aorta::stages {
namespace {

using job::Outcome;

TEST(SubTestNames, FilterSafeAndOnePerValueWhenTwoValuesMakeTheSamePart) {
  const auto names = subtest_names("test_collect_traces", {"n-1", "n:2", "n_1", "n.3"});
  ASSERT_EQ(names.size(), 4u);
  EXPECT_EQ(names[0].value, "n-1");
  EXPECT_EQ(names[0].name, "test_collect_traces/n_1");
  EXPECT_EQ(names[1].name, "test_collect_traces/n_2");
  EXPECT_EQ(names[2].value, "n_1");
  EXPECT_EQ(names[2].name, "test_collect_traces/n_1_2");
  EXPECT_EQ(names[3].name, "test_collect_traces/n.3");
}

// Hosts n-1 and n_1: n_1's test is .../n_1_2. With only n-1's test (.../n_1) selected,
// n_1's failed collection has no test of its own in the run, so its stage says it.
TEST(UnselectedSubTestFailures, AskAboutTheTestOfThatValueNotItsBareNamePart) {
  const job::SubTest passed{.kind = job::SubTestKind::kTraceCollection, .key = "host", .value = "n-1"};
  const job::SubTest failed{.kind = job::SubTestKind::kTraceCollection, .key = "host", .value = "n_1",
                            .outcome = Outcome::kFailed, .message = "copy failed"};
  const auto tests = subtest_names("test_collect_traces", {"n-1", "n_1"});
  const std::set<std::string> run = {"test_collect_traces/n_1"};
  auto selected = [&](const std::string& name) { return run.count(name) > 0; };
  EXPECT_EQ(unselected_subtest_failures({passed, failed}, "host", tests, selected),
            std::vector<std::string>{"n_1: copy failed"});
  // Its own test selected: said there, not on the stage.
  auto all = [](const std::string&) { return true; };
  EXPECT_TRUE(unselected_subtest_failures({passed, failed}, "host", tests, all).empty());
}

// Only sub-tests of the plan's key have tests (an artifact's failure is the stage's
// own); a failed value the plan never named has no test, so the stage says it.
TEST(UnselectedSubTestFailures, OnlyThePlansKeyAndAnUnplannedValueIsLeftOut) {
  const job::SubTest artifact{.kind = job::SubTestKind::kTraceCollection, .key = "artifact", .value = "torch_traces",
                              .outcome = Outcome::kFailed, .message = "none"};
  const job::SubTest stray{.kind = job::SubTestKind::kTraceCollection, .key = "host", .value = "n9",
                           .outcome = Outcome::kFailed, .message = "gone"};
  auto all = [](const std::string&) { return true; };
  EXPECT_EQ(unselected_subtest_failures({artifact, stray}, "host", subtest_names("test_collect_traces", {"n1"}), all),
            std::vector<std::string>{"n9: gone"});
}

}  // namespace
}  // namespace aorta::stages
