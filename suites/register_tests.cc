#include <set>

#include "fixtures/stage_fixture.h"
#include "job/outcome.h"
#include "suites/suites.h"

namespace aorta::suites {

std::string PlannedTest::name() const {
  std::string stage_name = stage->test_name;
  return subtest.empty() ? stage_name : stage_name + "/" + subtest;
}

std::vector<PlannedTest> planned_tests(const fixtures::SuiteSpec& suite, const config::Variant* variant,
                                       const std::vector<std::string>& hosts) {
  std::vector<PlannedTest> tests;
  for (const stages::StageSpec* spec : suite.stages) {
    tests.push_back({spec, "", ""});
    if (!variant || !spec->subtests) continue;
    std::set<std::string> taken;
    for (const auto& value : spec->subtests->values(*variant, hosts)) {
      std::string part = job::test_name_part(value);
      for (int n = 2; !taken.insert(part).second; ++n) part = job::test_name_part(value) + "_" + std::to_string(n);
      tests.push_back({spec, part, value});
    }
  }
  return tests;
}

void register_suite_tests(const fixtures::SuiteSpec& suite, const config::Variant* variant,
                          const std::vector<std::string>& hosts) {
  static std::set<const fixtures::SuiteSpec*> registered;
  if (!registered.insert(&suite).second) return;
  for (const auto& planned : planned_tests(suite, variant, hosts)) {
    std::string name = planned.name();
    ::testing::RegisterTest(suite.name, name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [planned]() -> fixtures::StageTest* {
                              return new fixtures::StageTest(*planned.stage, planned.subtest, planned.value);
                            });
  }
}

}  // namespace aorta::suites
