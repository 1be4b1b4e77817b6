#include <set>

#include "fixtures/stage_fixture.h"
#include "job/outcome.h"
#include "suites/suites.h"

namespace aorta::suites {

using fixtures::Stage;

std::vector<fixtures::StageSpec> suite_stages(fixtures::SuiteKind kind) {
  std::vector<fixtures::StageSpec> specs;
  for (Stage s : kind == fixtures::SuiteKind::kSingle ? aorta_single_stages() : aorta_distributed_stages())
    specs.push_back(fixtures::stage_spec(s));
  return specs;
}

std::string PlannedTest::name() const {
  std::string stage_name = fixtures::stage_spec(stage).test_name;
  return subtest.empty() ? stage_name : stage_name + "/" + subtest;
}

std::vector<PlannedTest> planned_tests(fixtures::SuiteKind kind, const config::Variant* variant,
                                       const std::vector<std::string>& hosts) {
  std::vector<PlannedTest> tests;
  for (const auto& spec : suite_stages(kind)) {
    tests.push_back({spec.stage, "", ""});
    if (!variant) continue;
    std::vector<std::string> values;
    if (spec.stage == Stage::kCollectTraces) values = job::collecting_hosts(*variant, hosts);
    if (spec.stage == Stage::kValidateThresholds)
      for (const auto& t : variant->thresholds)
        if (t.value) values.push_back(t.key);  // a null threshold is never checked
    std::set<std::string> taken;
    for (const auto& value : values) {
      std::string part = job::test_name_part(value);
      for (int n = 2; !taken.insert(part).second; ++n) part = job::test_name_part(value) + "_" + std::to_string(n);
      tests.push_back({spec.stage, part, value});
    }
  }
  return tests;
}

void register_suite_tests(fixtures::SuiteKind kind, const config::Variant* variant,
                          const std::vector<std::string>& hosts) {
  static std::set<fixtures::SuiteKind> registered;
  if (!registered.insert(kind).second) return;
  for (const auto& planned : planned_tests(kind, variant, hosts)) {
    std::string name = planned.name();
    ::testing::RegisterTest(fixtures::suite_name(kind), name.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                            [planned]() -> fixtures::StageTest* {
                              return new fixtures::StageTest(planned.stage, planned.subtest, planned.value);
                            });
  }
}

}  // namespace aorta::suites
