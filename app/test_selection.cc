#include "app/test_selection.h"

#include "app/gtest_filter.h"
#include "suites/selection.h"

namespace aorta::app {
namespace {

std::string full_name(const fixtures::SuiteSpec& suite, const suites::PlannedTest& test) {
  return std::string(suite.name) + "." + test.name();
}

// The planned test of that full name, or null.
const suites::PlannedTest* find_test(const fixtures::SuiteSpec& suite, const std::vector<suites::PlannedTest>& tests,
                                     const std::string& name) {
  for (const auto& t : tests)
    if (full_name(suite, t) == name) return &t;
  return nullptr;
}

}  // namespace

std::vector<std::string> test_keywords(const fixtures::SuiteSpec& suite, const suites::PlannedTest& test) {
  return {std::string(suite.name) + ".py", test.stage->test_name, test.name()};
}

bool TestSelection::selects(const fixtures::SuiteSpec& suite, const suites::PlannedTest& test) const {
  if (keyword_) return keyword_->matches(test_keywords(suite, test));
  return !filter_ || cli::filter_matches(*filter_, full_name(suite, test));
}

std::string TestSelection::label() const {
  if (keyword_) return "-k '" + keyword_->text() + "'";
  return "--gtest_filter=" + filter_.value_or("*");
}

std::string TestSelection::gtest_filter(const std::vector<const fixtures::SuiteSpec*>& suites,
                                        const config::Variant* variant, const std::vector<std::string>& hosts) const {
  if (!keyword_) return filter_.value_or("*");
  std::string names;
  for (const auto* suite : suites)
    for (const auto& t : suites::planned_tests(*suite, variant, hosts))
      if (selects(*suite, t)) names += (names.empty() ? "" : ":") + full_name(*suite, t);
  return names.empty() ? "-*" : names;
}

const fixtures::SuiteSpec* pick_suite(const std::string& named, const TestSelection& selection,
                                      const config::Variant& variant, const std::vector<std::string>& hosts,
                                      std::string& error) {
  const size_t nodes = hosts.size();
  std::vector<const fixtures::SuiteSpec*> selected;
  for (const auto& suite : suites::all()) {
    if (!named.empty() && named != suite.name) continue;
    // The selection may name a sub-test (*max_avg_iteration_ms): every planned test counts.
    bool any = !selection.narrows();
    for (const auto& t : suites::planned_tests(suite, &variant, hosts)) any = any || selection.selects(suite, t);
    if (any) selected.push_back(&suite);
  }
  if (selected.empty()) {
    error = selection.label() + " selects no stage of " + (named.empty() ? suites::names(" or ") : named);
    return nullptr;
  }
  for (const auto* suite : selected)
    if (!fixtures::node_count_error(*suite, nodes)) return suite;
  error = *fixtures::node_count_error(*selected.front(), nodes);
  return nullptr;
}

std::optional<std::string> selection_problem(const TestSelection& selection, const fixtures::SuiteSpec& suite,
                                             const config::Variant& variant, const std::vector<std::string>& hosts) {
  if (!selection.narrows()) return std::nullopt;
  const auto tests = suites::planned_tests(suite, &variant, hosts);
  auto selected = [&](const std::string& name) {
    const auto* test = find_test(suite, tests, name);
    return test && selection.selects(suite, *test);
  };
  auto missing = suites::missing_stages(suite, tests, selected);
  if (!missing) return std::nullopt;
  if (!selection.keyword()) return suites::missing_stages_message(suite, *selection.filter(), *missing, cli::filter_matches);
  // -k: each stage added by name ("or" only widens, so this always selects them).
  std::string widened = "(" + selection.keyword()->text() + ")";
  for (const auto& stage : missing->stages) widened += " or " + stage;
  return suites::missing_stages_refusal(selection.label(), *missing,
                                        "add them (-k '" + widened + "') or run the whole suite (leave -k out)");
}

std::string problem_suite(const std::string& named, const TestSelection& selection) {
  if (!named.empty()) return named;
  std::vector<std::string> matched;
  for (const auto& suite : suites::all())
    for (const auto& t : suites::planned_tests(suite, nullptr, {}))
      if (selection.narrows() && selection.selects(suite, t)) {
        matched.push_back(suite.name);
        break;
      }
  return matched.size() == 1 ? matched.front() : "aorta_suite";
}

}  // namespace aorta::app
