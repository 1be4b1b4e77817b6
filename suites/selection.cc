#include "suites/selection.h"

#include <set>

namespace aorta::suites {

std::optional<MissingStages> missing_stages(const fixtures::SuiteSpec& suite, const std::vector<PlannedTest>& tests,
                                            const std::function<bool(const std::string&)>& selected) {
  auto full = [&](const std::string& test) { return std::string(suite.name) + "." + test; };
  std::set<const stages::StageSpec*> needed;
  std::string needed_by;
  for (const auto& t : tests) {
    if (!selected(full(t.name())) || t.stage->tears_down) continue;
    for (const auto* spec : suite.stages) {
      // Every stage before this test's stage, and its stage for a sub-test.
      if (spec == t.stage && t.subtest.empty()) break;
      if (!spec->tears_down && !selected(full(spec->test_name)) && needed.insert(spec).second && needed_by.empty())
        needed_by = full(t.name());
      if (spec == t.stage) break;
    }
  }
  if (needed.empty()) return std::nullopt;
  MissingStages missing{{}, needed_by};
  for (const auto* spec : suite.stages)  // in run order
    if (needed.count(spec)) missing.stages.push_back(spec->test_name);
  return missing;
}

std::string missing_stages_refusal(const std::string& selection, const MissingStages& missing,
                                   const std::string& advice) {
  std::string list;
  for (const auto& stage : missing.stages) list += (list.empty() ? "" : ", ") + stage;
  return selection + " selects " + missing.needed_by + " without " + list +
         ", which it needs: each stage works on what the stages before it left, so the run could not give the "
         "verdict the selection asks for (nothing was run); " + advice;
}

std::string missing_stages_message(const fixtures::SuiteSpec& suite, const std::string& filter,
                                   const MissingStages& missing,
                                   const std::function<bool(const std::string& filter, const std::string&)>& matches) {
  const std::string name = suite.name;
  // The filter with the missing stages added to its positive part.
  const size_t dash = filter.find('-');
  std::string positive = filter.substr(0, dash);
  if (positive.empty()) positive = "*";  // gtest's reading of a filter that starts with '-'
  const std::string negative = dash == std::string::npos ? "" : filter.substr(dash);
  for (const auto& stage : missing.stages) positive += (positive.empty() ? "" : ":") + name + "." + stage;
  const std::string widened = positive + negative;
  bool works = true;
  for (const auto& stage : missing.stages) works = works && matches(widened, name + "." + stage);
  const std::string advice = works ? "add them (--gtest_filter='" + widened + "') or run the whole suite (--gtest_filter='" +
                                         name + ".*')"
                                   : "the filter's '-' part excludes them; run the whole suite (--gtest_filter='" +
                                         name + ".*')";
  // One test by its full name is how ctest's gtest_discover_tests runs each test it found.
  const bool one_test = filter.find_first_of("*?:-") == std::string::npos;
  const std::string ctest = one_test ? ". Under ctest, register the suite as one test, not each test "
                                      "gtest_discover_tests finds (README, 'CI: gtest flags, filters and dashboards')"
                                    : "";
  return missing_stages_refusal("--gtest_filter=" + filter, missing, advice + ctest);
}

}  // namespace aorta::suites
