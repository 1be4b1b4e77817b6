#include "app/gtest_environment.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>

namespace aorta::app {
namespace {

const std::string kLost =
    ", so traces, reports and teardown (containers, the aorta_path lock) would be lost; the stages after a failure "
    "already stop or run only what helps";
const std::string kOneSession =
    "the stages of a run are one session in one process, each on what the one before left; they cannot be sharded "
    "(unset it)";

Error usage(const std::string& message) { return Error{ErrorCode::kInvalidInput, message, ""}; }

}  // namespace

const std::vector<GtestVariable>& gtest_variables() {
  using R = GtestRead;
  using E = EnvRule;
  static const std::vector<GtestVariable> variables = {
      {"GTEST_ALSO_RUN_DISABLED_TESTS", R::kBool, E::kPassed, ""},
      {"GTEST_BREAK_ON_FAILURE", R::kBool, E::kRefusedTrue, "it stops the process with SIGTRAP at the first failure" + kLost},
      {"GTEST_BRIEF", R::kBool, E::kPassed, ""},
      {"GTEST_CATCH_EXCEPTIONS", R::kBool, E::kRefusedFalse, "an exception out of a stage would end the process" + kLost},
      {"GTEST_COLOR", R::kString, E::kTaken, ""},
      {"GTEST_DEATH_TEST_STYLE", R::kString, E::kPassed, ""},
      {"GTEST_DEATH_TEST_USE_FORK", R::kBool, E::kPassed, ""},
      {"GTEST_FAIL_FAST", R::kBool, E::kTaken, ""},
      {"GTEST_FILTER", R::kString, E::kTaken, ""},
      // gtest loads a flag file only for the --gtest_flagfile flag, which is refused.
      {"GTEST_FLAGFILE", R::kString, E::kPassed, ""},
      {"GTEST_INSTALL_FAILURE_SIGNAL_HANDLER", R::kBool, E::kPassed, ""},  // Abseil builds only
      {"GTEST_OUTPUT", R::kString, E::kTaken, ""},
      {"GTEST_PRINT_TIME", R::kBool, E::kPassed, ""},
      {"GTEST_PRINT_UTF8", R::kBool, E::kPassed, ""},
      {"GTEST_RANDOM_SEED", R::kInt32, E::kWholeNumber, ""},
      {"GTEST_RECREATE_ENVIRONMENTS_WHEN_REPEATING", R::kBool, E::kPassed, ""},
      {"GTEST_REPEAT", R::kInt32, E::kOnlyOne,
       "one run is one session of stages (one run id, one set of traces and reports); to run N times, run the "
       "command N times"},
      {"GTEST_TOTAL_SHARDS", R::kInt32, E::kRefusedSet, kOneSession},
      {"GTEST_SHARD_INDEX", R::kInt32, E::kRefusedSet, kOneSession},
      {"GTEST_SHARD_STATUS_FILE", R::kString, E::kRunnerFile, ""},
      {"GTEST_SHUFFLE", R::kBool, E::kRefusedTrue, "the stages run in order, each on what the one before left"},
      {"GTEST_STACK_TRACE_DEPTH", R::kInt32, E::kWholeNumber, ""},
      {"GTEST_STREAM_RESULT_TO", R::kString, E::kRefusedNonEmpty,
       "gtest aborts the process when it cannot reach that host" + kLost},
      {"GTEST_THROW_ON_FAILURE", R::kBool, E::kRefusedTrue,
       "it turns the first failure into an exception that ends the process" + kLost},
      {"TERM", R::kString, E::kPassed, ""},  // colour when GTEST_COLOR is auto
      {"TESTBRIDGE_TEST_ONLY", R::kString, E::kTaken, ""},  // Bazel's filter
      {"TESTBRIDGE_TEST_RUNNER_FAIL_FAST", R::kString, E::kTaken, ""},
      {"TEST_PREMATURE_EXIT_FILE", R::kString, E::kRunnerFile, ""},
      {"XML_OUTPUT_FILE", R::kString, E::kTaken, ""},  // Bazel's JUnit file
  };
  return variables;
}

std::optional<long> gtest_int32(const std::string& text) {
  // gtest's ParseInt32: strtol over the whole text, in int32's range.
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long n = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || n < INT32_MIN || n > INT32_MAX) return std::nullopt;
  return n;
}

const GtestVariable* gtest_variable_of_flag(const std::string& flag_key) {
  std::string name = "GTEST_" + flag_key;
  for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const auto& v : gtest_variables())
    if (v.name == name) return &v;
  return nullptr;
}

bool gtest_rule_refuses(EnvRule rule, bool on, std::optional<long> number, const std::string& text) {
  switch (rule) {
    case EnvRule::kRefusedTrue: return on;
    case EnvRule::kRefusedFalse: return !on;
    case EnvRule::kRefusedNonEmpty: return !text.empty();
    case EnvRule::kOnlyOne: return number != 1;
    case EnvRule::kRefusedSet: return true;
    default: return false;
  }
}

std::optional<Error> gtest_environment_refusal(const Getenv& getenv) {
  for (const auto& variable : gtest_variables()) {
    const char* set = getenv(variable.name.c_str());
    if (!set) continue;
    const std::string value = set, shown = variable.name + "=" + value;
    const auto number = gtest_int32(value);
    if ((variable.rule == EnvRule::kWholeNumber || variable.rule == EnvRule::kOnlyOne) && !number)
      return usage(shown + ": not a whole number (GoogleTest reads a 32-bit integer; unset it or give one)");
    const bool refused = gtest_rule_refuses(variable.rule, value != "0", number, value);  // gtest: "0" is false
    if (refused) return usage(shown + " is refused: " + variable.why);
  }
  return std::nullopt;
}

}  // namespace aorta::app
