// What a --gtest_filter leaves out that the tests it selects need (issue 31, 2). A
// filter must never turn a run green by leaving out what a gate needs: the run is
// refused before anything runs, naming the stages to add.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "suites/suites.h"

namespace aorta::suites {

// The stages of a suite are a chain, each working on what the ones before it left:
// a selected stage needs every stage before it, and a selected sub-test its stage
// as well. The stage that tears down needs none (it removes only what this run
// started, and runs at the suite's end when it was not selected). Leaving out stages
// at the end, or single sub-tests, is the user's choice and allowed.
// `selected` says whether the filter selects a test ("<suite>.<test>"). The stage
// tests to add, in run order, with the first selected test that needs them.
struct MissingStages {
  std::vector<std::string> stages;  // test names: test_collect_traces ...
  std::string needed_by;            // the first selected test that needs one of them
};
std::optional<MissingStages> missing_stages(const fixtures::SuiteSpec& suite, const std::vector<PlannedTest>& tests,
                                            const std::function<bool(const std::string&)>& selected);

// The refusal's text for any selection: "<selection> selects <test> without <stages>,
// which it needs: ...; <advice>" (advice: how to add them).
std::string missing_stages_refusal(const std::string& selection, const MissingStages& missing,
                                   const std::string& advice);

// The refusal's text: what the filter leaves out, and a filter that adds it (or the
// whole suite when adding it would not do, as when the filter's '-' part excludes it).
std::string missing_stages_message(const fixtures::SuiteSpec& suite, const std::string& filter,
                                   const MissingStages& missing,
                                   const std::function<bool(const std::string& filter, const std::string&)>& matches);

}  // namespace aorta::suites
