// Which tests a run selects: gtest's filter (--gtest_filter, GTEST_FILTER) or pytest's
// -k expression (`cvs run ... -k EXPR`), under one rule: the selection picks the suite
// when none is named, and one that leaves out a stage a selected test needs is refused
// before anything runs (suites/selection.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/keyword_expression.h"
#include "config/variant.h"
#include "suites/suites.h"

namespace aorta::app {

class TestSelection {
 public:
  // -k wins over a filter from GTEST_FILTER (a flag over a variable); the command line
  // refuses -k with --gtest_filter.
  TestSelection(std::optional<std::string> filter, std::optional<cli::KeywordExpression> keyword)
      : filter_(keyword ? std::nullopt : std::move(filter)), keyword_(std::move(keyword)) {}

  bool narrows() const { return filter_ || keyword_; }
  bool selects(const fixtures::SuiteSpec& suite, const suites::PlannedTest& test) const;
  const std::optional<std::string>& filter() const { return filter_; }
  const std::optional<cli::KeywordExpression>& keyword() const { return keyword_; }
  // How the user gave it: "--gtest_filter=PATTERNS" or "-k 'EXPR'".
  std::string label() const;
  // The filter gtest gets: the one given, or the tests -k selects by name ("-*": none).
  std::string gtest_filter(const std::vector<const fixtures::SuiteSpec*>& suites, const config::Variant* variant,
                           const std::vector<std::string>& hosts) const;

 private:
  std::optional<std::string> filter_;
  std::optional<cli::KeywordExpression> keyword_;
};

// The words -k matches for a test, as pytest's keywords for CVS's item: the module
// (<suite>.py), the stage's test name, and the sub-test's full name
// (test_validate_thresholds/max_avg_iteration_ms).
std::vector<std::string> test_keywords(const fixtures::SuiteSpec& suite, const suites::PlannedTest& test);

// The suite the run selects, or null and the error (exit 2): the one named (run
// aorta_single), else the one the selection's tests belong to that fits the nodes.
const fixtures::SuiteSpec* pick_suite(const std::string& named, const TestSelection& selection,
                                      const config::Variant& variant, const std::vector<std::string>& hosts,
                                      std::string& error);

// Why the selection cannot run (it leaves out a stage a selected test needs), or nothing.
std::optional<std::string> selection_problem(const TestSelection& selection, const fixtures::SuiteSpec& suite,
                                             const config::Variant& variant, const std::vector<std::string>& hosts);

// The suite named in the reports of a run that could not start: the one named, else
// the one the selection's stages belong to, else the program's name.
std::string problem_suite(const std::string& named, const TestSelection& selection);

}  // namespace aorta::app
