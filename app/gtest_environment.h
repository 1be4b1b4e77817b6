// The environment variables GoogleTest 1.12 reads (gtest.cc, gtest-port.cc,
// gtest-death-test.cc), in one table, each read as gtest reads it, an empty value
// included: a bool is true for any value but "0"; an int32 that does not parse gets
// gtest's own error and its default; a string is taken as it is, empty too. The table
// says what a run does with each, so that no variable can end the process mid-run
// (no JUnit, no teardown, the lock holder left) or print gtest's error instead of ours.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/gtest_flags.h"
#include "common/result.h"

namespace aorta::app {

enum class GtestRead { kBool, kInt32, kString };

enum class EnvRule {
  kPassed,           // gtest's to read: no value breaks a session
  kTaken,            // read by the run itself (check_gtest_flags): filter, output, fail-fast, colour
  kRefusedTrue,      // a bool that must read false: unset or "0"
  kRefusedFalse,     // a bool that must read true: unset or not "0"
  kRefusedNonEmpty,  // a string that must be unset or empty
  kWholeNumber,      // an int32 that must parse, refused otherwise with our message
  kOnlyOne,          // an int32 that must be 1
  kRefusedSet,       // refused when set at all, empty or not a number included
  kRunnerFile,       // a file gtest writes for a test runner: the run writes it (runner_files.h)
};

struct GtestVariable {
  std::string name;
  GtestRead read;
  EnvRule rule;
  std::string why;  // the refusal's reason, after "<NAME>=<value> is refused: "
};

// Every variable gtest 1.12 reads, by name.
const std::vector<GtestVariable>& gtest_variables();

// A whole number as gtest's ParseInt32 reads it (strtol over the whole text, in
// int32's range), for flags and variables alike.
std::optional<long> gtest_int32(const std::string& text);

// The variable a --gtest_ flag stands for ("break_on_failure": GTEST_BREAK_ON_FAILURE),
// or null: a flag's value is refused by its variable's rule, for the same reason.
const GtestVariable* gtest_variable_of_flag(const std::string& flag_key);

// Whether `rule` refuses a value that reads as `on` (a bool), `number` (an int32, if
// it is one) and `text` (as given).
bool gtest_rule_refuses(EnvRule rule, bool on, std::optional<long> number, const std::string& text);

// The first variable whose value the run refuses, as a usage error naming it (exit 2).
std::optional<Error> gtest_environment_refusal(const Getenv& getenv);

}  // namespace aorta::app
