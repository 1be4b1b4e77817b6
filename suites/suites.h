// The two suites as gtest sees them: the table of suites (suites.cc: each one's
// stages in run order and its node rule), and the registration of a suite's tests:
// one per stage, plus one per sub-test (per configured threshold, per node whose
// traces are collected) right after its stage, so gtest's printers, filters and
// every listener see them.
#pragma once

#include <string>
#include <vector>

#include "config/variant.h"
#include "fixtures/lifecycle.h"

namespace aorta::suites {

// Every suite, in the order they are listed and tried.
const std::vector<fixtures::SuiteSpec>& all();
// The suite of that name, or null.
const fixtures::SuiteSpec* find(const std::string& name);
// Every suite's name, joined: names(" or ") is "aorta_single or aorta_distributed".
std::string names(const std::string& last_separator);
// Every suite's stages once, each suite's run order kept (a stage one suite lacks at
// its place among the others): the Run Deck's lifecycle, one list for every suite as
// CVS's STAGE_LABELS.
std::vector<const stages::StageSpec*> lifecycle();

// A test this process can register: the stage, and the sub-test's gtest name
// (empty for the stage itself). "test_validate_thresholds/max_avg_iteration_ms".
struct PlannedTest {
  const stages::StageSpec* stage;
  std::string subtest;  // the sub-test's test name (stages::subtest_names), empty for the stage test
  std::string value;    // the sub-test's SubTest::value (host or threshold key)
  std::string name() const;
};

// Every test of the suite in run order. Without a variant: the stage tests only
// (what --gtest_list_tests shows without a config). A sub-test's name is
// stages::subtest_names': its value made filter-safe, and should two values make the
// same part (hosts n-1 and n_1), the later gets _2, _3, ... so each keeps a test.
std::vector<PlannedTest> planned_tests(const fixtures::SuiteSpec& suite, const config::Variant* variant,
                                       const std::vector<std::string>& hosts);

// Registers planned_tests with gtest (before RUN_ALL_TESTS). Idempotent per suite.
void register_suite_tests(const fixtures::SuiteSpec& suite, const config::Variant* variant,
                          const std::vector<std::string>& hosts);

}  // namespace aorta::suites
