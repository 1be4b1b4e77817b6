// Which gtest tests a run registers, in which order and under which names.
#include <gtest/gtest.h>

#include "suites/suites.h"

namespace aorta::suites {
namespace {

using fixtures::SuiteKind;

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
  auto tests = names(planned_tests(SuiteKind::kSingle, nullptr, {"localhost"}));
  ASSERT_EQ(tests.size(), 10u);
  EXPECT_EQ(tests.front(), "test_launch_container");
  EXPECT_EQ(tests.back(), "test_teardown");
}

// Each configured (non-null) threshold right after the threshold stage, in file
// order; the head node's collection right after the collection stage.
TEST(PlannedTests, SubTestsFollowTheirStage) {
  config::Variant v = with_thresholds();
  auto tests = names(planned_tests(SuiteKind::kSingle, &v, {"node-1.example"}));
  std::vector<std::string> expected = {"test_launch_container", "test_clone_aorta", "test_build_rccl",
                                       "test_run_benchmark", "test_collect_traces",
                                       "test_collect_traces/node_1.example", "test_analyze", "test_parse_results",
                                       "test_validate_thresholds", "test_validate_thresholds/max_avg_iteration_ms",
                                       "test_validate_thresholds/min_overlap_ratio", "test_generate_report",
                                       "test_teardown"};
  EXPECT_EQ(tests, expected);
}

// torchrun collects from every node: one test per node; names stay usable in
// --gtest_filter ('-' and ':' have meaning there) and never repeat.
TEST(PlannedTests, EveryCollectingNodeOnceWithAFilterSafeName) {
  config::Variant v = with_thresholds();
  v.multi_node.master_launch_mode = "torchrun";
  auto tests = names(planned_tests(SuiteKind::kDistributed, &v, {"n-1", "n:2", "n_1"}));
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
  auto tests = names(planned_tests(SuiteKind::kSingle, &v, {"head"}));
  EXPECT_EQ(std::count(tests.begin(), tests.end(), "test_collect_traces/head"), 1);
}

}  // namespace
}  // namespace aorta::suites
