// -k over the suite's stages and sub-tests: pytest's matching on each test's keywords,
// the same suite choice and the same refusal of a selection that leaves out a stage
// its tests need as --gtest_filter (issue 43, 5).
#include "app/test_selection.h"

#include <gtest/gtest.h>

namespace aorta::app {
namespace {

const fixtures::SuiteSpec& single() { return *suites::find("aorta_single"); }

config::Variant with_gates() {
  config::Variant v;
  v.thresholds = {{"max_avg_iteration_ms", 100.0}, {"min_overlap_ratio", 0.1}};
  return v;
}

TestSelection by_keyword(const std::string& expression) {
  return TestSelection(std::nullopt, *cli::KeywordExpression::compile(expression));
}

// The full names of the tests of aorta_single on one node that the selection selects.
std::vector<std::string> selected(const TestSelection& selection) {
  static const config::Variant v = with_gates();
  std::vector<std::string> names;
  for (const auto& t : suites::planned_tests(single(), &v, {"localhost"}))
    if (selection.selects(single(), t)) names.push_back(t.name());
  return names;
}

TEST(TestSelection, KeywordsAreTheModuleTheStageAndTheSubTest) {
  const auto tests = suites::planned_tests(single(), nullptr, {});
  EXPECT_EQ(test_keywords(single(), tests.front()),
            (std::vector<std::string>{"aorta_single.py", "test_launch_container", "test_launch_container"}));
  static const config::Variant v = with_gates();
  for (const auto& t : suites::planned_tests(single(), &v, {"localhost"}))
    if (t.name() == "test_validate_thresholds/min_overlap_ratio")
      EXPECT_EQ(test_keywords(single(), t), (std::vector<std::string>{"aorta_single.py", "test_validate_thresholds",
                                                                      "test_validate_thresholds/min_overlap_ratio"}));
}

// A stage selects its sub-tests as pytest's -k selects a test with its sub-tests;
// a sub-test's own name can leave it out.
TEST(TestSelection, KeywordMatchingOverStagesAndSubTests) {
  EXPECT_EQ(selected(by_keyword("teardown or LAUNCH")),
            (std::vector<std::string>{"test_launch_container", "test_teardown"}));
  EXPECT_EQ(selected(by_keyword("collect")),
            (std::vector<std::string>{"test_collect_traces", "test_collect_traces/localhost"}));
  EXPECT_EQ(selected(by_keyword("thresholds and not overlap")),
            (std::vector<std::string>{"test_validate_thresholds", "test_validate_thresholds/max_avg_iteration_ms"}));
  static const config::Variant v = with_gates();  // the module's name: every test, stages and sub-tests
  EXPECT_EQ(selected(by_keyword("single")).size(), suites::planned_tests(single(), &v, {"localhost"}).size());
  EXPECT_EQ(selected(by_keyword("distributed")), std::vector<std::string>{});
}

TEST(TestSelection, TheFilterGtestGetsNamesTheSelectedTests) {
  static const config::Variant v = with_gates();
  EXPECT_EQ(by_keyword("teardown or launch").gtest_filter({&single()}, &v, {"localhost"}),
            "aorta_single.test_launch_container:aorta_single.test_teardown");
  EXPECT_EQ(by_keyword("nothing_like_it").gtest_filter({&single()}, &v, {"localhost"}), "-*");
  EXPECT_EQ(TestSelection("*single*", std::nullopt).gtest_filter({&single()}, &v, {}), "*single*");
  EXPECT_EQ(TestSelection(std::nullopt, std::nullopt).gtest_filter({&single()}, &v, {}), "*");
  // -k wins over GTEST_FILTER (the command line refuses it with --gtest_filter).
  EXPECT_EQ(TestSelection("*", *cli::KeywordExpression::compile("teardown")).label(), "-k 'teardown'");
}

TEST(TestSelection, KeywordPicksTheSuiteAsTheFilterDoes) {
  const config::Variant v = with_gates();
  std::string error;
  const auto* one = pick_suite("", by_keyword("teardown and single"), v, {"localhost"}, error);
  ASSERT_TRUE(one) << error;
  EXPECT_STREQ(one->name, "aorta_single");
  const auto* two = pick_suite("", by_keyword("rdma"), v, {"a", "b"}, error);
  ASSERT_TRUE(two) << error;
  EXPECT_STREQ(two->name, "aorta_distributed");
  EXPECT_FALSE(pick_suite("aorta_single", by_keyword("rdma"), v, {"localhost"}, error));
  EXPECT_EQ(error, "-k 'rdma' selects no stage of aorta_single");
  EXPECT_EQ(problem_suite("", by_keyword("rdma")), "aorta_distributed");
}

TEST(TestSelection, AKeywordSelectionWithoutTheStagesItNeedsIsRefused) {
  const config::Variant v = with_gates();
  EXPECT_FALSE(selection_problem(by_keyword("launch or teardown"), single(), v, {"localhost"}));
  EXPECT_FALSE(selection_problem(by_keyword("not overlap"), single(), v, {"localhost"}));  // one gate left out
  auto problem = selection_problem(by_keyword("benchmark"), single(), v, {"localhost"});
  ASSERT_TRUE(problem);
  EXPECT_EQ(*problem,
            "-k 'benchmark' selects aorta_single.test_run_benchmark without test_launch_container, test_clone_aorta, "
            "test_build_rccl, which it needs: each stage works on what the stages before it left, so the run could "
            "not give the verdict the selection asks for (nothing was run); add them (-k '(benchmark) or "
            "test_launch_container or test_clone_aorta or test_build_rccl') or run the whole suite (leave -k out)");
  // The widened expression it suggests runs.
  EXPECT_FALSE(selection_problem(by_keyword("(benchmark) or test_launch_container or test_clone_aorta or "
                                            "test_build_rccl"),
                                 single(), v, {"localhost"}));
}

}  // namespace
}  // namespace aorta::app
