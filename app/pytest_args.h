// The pytest arguments CVS users give `cvs run` (it hands pytest every argument it
// does not know), taken with their nearest meaning in this suite rather than refused:
//   -v/--verbose, -q/--quiet  pytest's verbosity (each -v adds one, each -q takes one):
//                             below 0 is --gtest_brief=1; gtest's printer already lists
//                             every test with its outcome, so -v and more change nothing
//   -s, --capture=METHOD      fd, sys, no or tee-sys: nothing is captured here; a stage's
//                             output is printed and kept in the log (as tee-sys), whatever
//   -x/--exitfirst, --maxfail=N (N >= 1)   --gtest_fail_fast: the stages stop at the first
//                             failure and still collect, report and tear down
//   --maxfail=0               pytest's default, no limit
//   -k EXPR                   pytest's keyword expression (keyword_expression.h), over
//                             each stage and sub-test
// Short ones combine as in pytest (-vs, -xvs, -vvv, -kEXPR); a value may follow as the
// next word or after '='. Any other argument stays unknown and is refused by name.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/keyword_expression.h"
#include "common/result.h"

namespace aorta::cli {

struct PytestArgs {
  int verbosity = 0;                   // -v count less -q count
  std::string verbosity_words;         // "-vv", "-q": for the console line
  std::string capture;                 // the last method: fd, sys, no or tee-sys (-s: no)
  std::string capture_words;           // as given, each once: "-s, --capture=tee-sys"
  std::string fail_words;              // "-x", "--exitfirst", "--maxfail=N", as given
  bool exit_first = false;             // -x, --exitfirst or --maxfail=N with N >= 1
  std::optional<KeywordExpression> keyword;  // the last -k
  bool any() const { return !verbosity_words.empty() || !capture_words.empty() || !fail_words.empty() || keyword; }
};

// Takes the pytest arguments out of `args` (up to a "--"), leaving the other words in
// order. takes_value(word): whether the word is one of the command's own options whose
// value is the next word (that word is then never read as a pytest argument). An error
// names the argument and what it takes.
Result<PytestArgs> take_pytest_args(std::vector<std::string>& args,
                                    const std::function<bool(const std::string&)>& takes_value);

// The gtest flags -q and -x stand for, those of `gtest_args` (the flags given) left
// alone; an error when -k comes with --gtest_filter (two selections).
Result<std::vector<std::string>> gtest_flags_of(const PytestArgs& args, const std::vector<std::string>& gtest_args);

// What each given argument means here, in one line (empty when none was given).
std::string pytest_args_line(const PytestArgs& args);

}  // namespace aorta::cli
