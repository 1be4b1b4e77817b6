// Which gtest tests a run registers, in which order and under which names.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "suites/suites.h"
#include "tests/stage_lists.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::suites {
namespace {

const fixtures::SuiteSpec& single() { return *find("aorta_single"); }
const fixtures::SuiteSpec& distributed() { return *find("aorta_distributed"); }

std::vector<std::string> names(const std::vector<PlannedTest>& tests) {
  std::vector<std::string> out;
  for (const auto& t : tests) out.push_back(t.name());
  return out;
}

config::Variant with_thresholds() {
  config::Variant v;
  v.thresholds = {{"max_avg_iteration_ms", 100.0}, {"min_compute_ratio", std::nullopt}, {"min_overlap_ratio", 0.1}};
  return v;
}

TEST(PlannedTests, WithoutAConfigOnlyTheStages) {
  for (const auto& suite : all())
    EXPECT_EQ(names(planned_tests(suite, nullptr, {"localhost"})), aorta::testing::stage_names(suite)) << suite.name;
}

// Each configured (non-null) threshold right after the threshold stage, in file
// order; the head node's collection right after the collection stage.
TEST(PlannedTests, SubTestsFollowTheirStage) {
  config::Variant v = with_thresholds();
  auto tests = names(planned_tests(single(), &v, {"node-1.example"}));
  const std::map<std::string, std::vector<std::string>> subtests = {
      {"test_collect_traces", {"node_1.example"}},
      {"test_validate_thresholds", {"max_avg_iteration_ms", "min_overlap_ratio"}}};
  std::vector<std::string> expected;
  for (const auto& stage : aorta::testing::stage_names(single())) {
    expected.push_back(stage);
    if (auto found = subtests.find(stage); found != subtests.end())
      for (const auto& part : found->second) expected.push_back(stage + "/" + part);
  }
  EXPECT_EQ(tests, expected);
  EXPECT_EQ(tests.size(), single().stages.size() + 3);  // every sub-test above was planned
}

// torchrun collects from every node: one test per node; names stay usable in
// --gtest_filter ('-' and ':' have meaning there) and never repeat.
TEST(PlannedTests, EveryCollectingNodeOnceWithAFilterSafeName) {
  config::Variant v = with_thresholds();
  v.multi_node.master_launch_mode = "torchrun";
  auto tests = names(planned_tests(distributed(), &v, {"n-1", "n:2", "n_1"}));
  std::vector<std::string> collect;
  for (const auto& t : tests)
    if (t.rfind("test_collect_traces/", 0) == 0) collect.push_back(t);
  EXPECT_EQ(collect, (std::vector<std::string>{"test_collect_traces/n_1", "test_collect_traces/n_2",
                                               "test_collect_traces/n_1_2"}));
  EXPECT_EQ(tests[2], "test_setup_rdma");
}

TEST(PlannedTests, ScriptModeCollectsFromTheHeadOnly) {
  config::Variant v = with_thresholds();
  v.multi_node.master_launch_mode = "script";
  auto tests = names(planned_tests(single(), &v, {"head"}));
  EXPECT_EQ(std::count(tests.begin(), tests.end(), "test_collect_traces/head"), 1);
}

// Every stage module under lib/stages (each defines a spec with a test name) runs in
// at least one suite, and no suite runs a stage twice: a new stage file that no
// suite lists, or a line pasted twice, fails here.
TEST(SuiteTable, EveryStageModuleRunsInASuiteAndNoSuiteRepeatsOne) {
  namespace fs = std::filesystem;
  static const std::regex spec_name(R"re(\.test_name\s*=\s*"([a-z_]+)")re");
  std::set<std::string> modules;
  for (const auto& entry : fs::directory_iterator(fs::path(AORTA_SOURCE_DIR) / "lib/stages")) {
    std::ifstream in(entry.path());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (std::sregex_iterator m(text.begin(), text.end(), spec_name), end; m != end; ++m) modules.insert((*m)[1]);
  }
  ASSERT_GE(modules.size(), 11u);
  std::set<std::string> listed;
  for (const auto& suite : all()) {
    std::map<std::string, int> times;
    for (const auto* spec : suite.stages) ++times[spec->test_name];
    for (const auto& [name, n] : times) {
      EXPECT_EQ(n, 1) << suite.name << " runs " << name << " " << n << " times";
      listed.insert(name);
    }
  }
  for (const auto& name : modules) EXPECT_TRUE(listed.count(name)) << name << " is in no suite (suites/suites.cc)";
  for (const auto& name : listed) EXPECT_TRUE(modules.count(name)) << name << " has no module under lib/stages";
}

// The one spec that tears down is the last stage of every suite, so a filtered-out
// or never-reached teardown is still run by the fixture at the suite's end.
TEST(SuiteTable, EverySuiteEndsWithItsTeardown) {
  for (const auto& suite : all()) {
    ASSERT_FALSE(suite.stages.empty()) << suite.name;
    EXPECT_TRUE(suite.stages.back()->tears_down) << suite.name;
    int tearing = 0;
    for (const auto* spec : suite.stages) tearing += spec->tears_down;
    EXPECT_EQ(tearing, 1) << suite.name;
  }
}

// The Run Deck's lifecycle: every suite's stages once, each suite's run order kept.
TEST(SuiteTable, TheLifecycleHoldsEverySuitesStagesOnceInTheirOrder) {
  const std::vector<const stages::StageSpec*> lifecycle = suites::lifecycle();
  for (const auto& suite : all()) {
    auto at = lifecycle.begin();
    for (const auto* spec : suite.stages) {
      auto found = std::find(lifecycle.begin(), lifecycle.end(), spec);
      EXPECT_TRUE(found != lifecycle.end() && found >= at) << suite.name << ": " << spec->test_name;
      if (found != lifecycle.end()) at = found + 1;
    }
  }
  std::set<const stages::StageSpec*> once(lifecycle.begin(), lifecycle.end());
  EXPECT_EQ(once.size(), lifecycle.size());
  std::set<const stages::StageSpec*> every;
  for (const auto& suite : all()) every.insert(suite.stages.begin(), suite.stages.end());
  EXPECT_EQ(once, every);
}

}  // namespace
}  // namespace aorta::suites
