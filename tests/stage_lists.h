// The stage lists a test compares with, read from the one table of suites
// (suites/suites.cc): a test states its rule ("every stage before the gate") and a new
// stage changes no test but the one that pins the order (Suites.StagesInRunOrder).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fixtures/lifecycle.h"

namespace aorta::testing {

// The suite's stage test names in run order; with `before`, only those that run
// before that stage.
inline std::vector<std::string> stage_names(const fixtures::SuiteSpec& suite, std::string_view before = "") {
  std::vector<std::string> names;
  for (const auto* stage : suite.stages) {
    if (stage->test_name == before) break;
    names.push_back(stage->test_name);
  }
  return names;
}

}  // namespace aorta::testing
