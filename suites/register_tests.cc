#include <set>

#include "fixtures/stage_fixture.h"
#include "suites/suites.h"

namespace aorta::suites {

std::string PlannedTest::name() const { return subtest.empty() ? stage->test_name : subtest; }

std::vector<PlannedTest> planned_tests(const fixtures::SuiteSpec& suite, const config::Variant* variant,
                                       const std::vector<std::string>& hosts) {
  std::vector<PlannedTest> tests;
  for (const stages::StageSpec* spec : suite.stages) {
    tests.push_back({spec, "", ""});
    if (!variant || !spec->subtests) continue;
    for (auto& sub : stages::subtest_names(spec->test_name, spec->subtests->values(*variant, hosts)))
      tests.push_back({spec, std::move(sub.name), std::move(sub.value)});
  }
  return tests;
}

void register_suite_tests(const fixtures::SuiteSpec& suite, const config::Variant* variant,
                          const std::vector<std::string>& hosts) {
  static std::set<const fixtures::SuiteSpec*> registered;
  if (!registered.insert(&suite).second) return;
  const std::vector<PlannedTest> tests = planned_tests(suite, variant, hosts);
  for (const auto& planned : tests) {
    std::string name = planned.name();
    // A stage's test knows its sub-tests' tests (it says a failure whose test is filtered out).
    std::vector<stages::SubTestName> subtests;
    for (const auto& t : tests)
      if (planned.subtest.empty() && t.stage == planned.stage && !t.subtest.empty()) subtests.push_back({t.value, t.subtest});
    ::testing::RegisterTest(suite.name, name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [planned, subtests]() -> fixtures::StageTest* {
                              if (planned.subtest.empty()) return new fixtures::StageTest(*planned.stage, subtests);
                              return new fixtures::StageTest(*planned.stage, stages::SubTestName{planned.value, planned.subtest});
                            });
  }
}

}  // namespace aorta::suites
