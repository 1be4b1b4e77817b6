// Issue 31, 2: a filter that selects tests without the stages they need is refused,
// naming those stages; one that leaves out only the end of a run, single sub-tests
// or the teardown stage is the user's choice.
#include "suites/selection.h"

#include <gtest/gtest.h>

#include "app/gtest_filter.h"
#include "tests/stage_lists.h"

namespace aorta::suites {
namespace {

const fixtures::SuiteSpec& single() { return *find("aorta_single"); }

config::Variant with_gates() {
  config::Variant v;
  v.thresholds = {{"max_avg_iteration_ms", 100.0}, {"min_overlap_ratio", 0.1}};
  return v;
}

std::optional<MissingStages> missing_for(const std::string& filter) {
  static const config::Variant v = with_gates();
  auto tests = planned_tests(single(), &v, {"localhost"});
  return missing_stages(single(), tests, [&](const std::string& t) { return cli::filter_matches(filter, t); });
}

std::string message_for(const std::string& filter) {
  auto missing = missing_for(filter);
  return missing ? missing_stages_message(single(), filter, *missing, cli::filter_matches) : "";
}

// Every stage the threshold stage needs: those before it.
std::vector<std::string> before_thresholds() {
  return aorta::testing::stage_names(single(), "test_validate_thresholds");
}

TEST(FilterSelection, AGateAloneNeedsItsStageAndEveryStageBefore) {
  auto missing = missing_for("*max_avg_iteration_ms");
  ASSERT_TRUE(missing);
  std::vector<std::string> expected = before_thresholds();
  expected.push_back("test_validate_thresholds");
  EXPECT_EQ(missing->stages, expected);
  EXPECT_EQ(missing->needed_by, "aorta_single.test_validate_thresholds/max_avg_iteration_ms");
  const std::string m = message_for("*max_avg_iteration_ms");
  EXPECT_EQ(m.rfind("--gtest_filter=*max_avg_iteration_ms selects "
                    "aorta_single.test_validate_thresholds/max_avg_iteration_ms without test_launch_container, ",
                    0),
            0u)
      << m;
  EXPECT_NE(m.find("(nothing was run)"), std::string::npos) << m;
  // The filter it suggests selects every stage the gate needs.
  const std::string suggested = "*max_avg_iteration_ms:aorta_single.test_launch_container:";
  EXPECT_NE(m.find("add them (--gtest_filter='" + suggested), std::string::npos) << m;
  const size_t at = m.find("add them (--gtest_filter='") + 26;
  const std::string widened = m.substr(at, m.find('\'', at) - at);
  EXPECT_FALSE(missing_for(widened)) << widened;
}

TEST(FilterSelection, AStageAloneNeedsEveryStageBefore) {
  auto missing = missing_for("*test_validate_thresholds");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->stages, before_thresholds());
  EXPECT_EQ(missing->needed_by, "aorta_single.test_validate_thresholds");
  // The first stage needs nothing; teardown alone neither (it removes only what the run started).
  EXPECT_FALSE(missing_for("aorta_single.test_launch_container"));
  EXPECT_FALSE(missing_for("aorta_single.test_teardown"));
}

TEST(FilterSelection, AStageLeftOutIsNamedUnlessNothingAfterItIsSelected) {
  auto missing = missing_for("-*test_collect_traces");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->stages, std::vector<std::string>{"test_collect_traces"});
  // "*test_collect_traces" leaves its node's sub-test selected: that is the first to need it.
  EXPECT_EQ(missing->needed_by, "aorta_single.test_collect_traces/localhost");
  // Its '-' part excludes it, so adding it cannot help: the advice is the whole suite.
  const std::string m = message_for("-*test_collect_traces");
  EXPECT_NE(m.find("the filter's '-' part excludes them; run the whole suite (--gtest_filter='aorta_single.*')"),
            std::string::npos)
      << m;
  // Leaving out the end of a run, a single gate or the teardown stage is allowed.
  EXPECT_FALSE(missing_for("-*test_generate_report"));
  EXPECT_FALSE(missing_for("-*test_validate_thresholds*:*test_generate_report"));
  EXPECT_FALSE(missing_for("-*test_validate_thresholds/min_overlap_ratio"));
  EXPECT_FALSE(missing_for("-*test_teardown"));
  EXPECT_FALSE(missing_for("*"));
  EXPECT_FALSE(missing_for("*single*"));
}

}  // namespace
}  // namespace aorta::suites
