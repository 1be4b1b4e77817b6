// The --gtest_* flags of a run, checked before any config is read. One run is one
// session of stages in order (one run id, one set of traces and reports), so the
// flags that repeat or reorder tests are refused, and a misspelt flag is a usage
// error rather than gtest's help and a green exit.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace aorta::app {

using Getenv = std::function<const char*(const char*)>;

// Where the JUnit file goes: a file, or a folder that gets <suite>.xml.
struct JunitOutput {
  std::filesystem::path path;
  bool folder = false;
  std::string source = "--gtest_output";  // or GTEST_OUTPUT, XML_OUTPUT_FILE: for messages
  std::filesystem::path file_for(const std::string& suite) const { return folder ? path / (suite + ".xml") : path; }
};

struct GtestFlags {
  std::vector<std::string> pass_through;  // for InitGoogleTest: all but filter and output, plus color
  std::optional<std::string> filter;      // the last --gtest_filter
  std::optional<JunitOutput> junit;       // --gtest_output=xml[:PATH], or GTEST_OUTPUT
  bool list_tests = false;
  // --gtest_fail_fast or GTEST_FAIL_FAST, taken by the run rather than gtest: the
  // stages already stop at the first failure, and gtest's own fail-fast would skip
  // collection, reports and teardown without running them (issue 31, 1).
  bool fail_fast = false;
};

// Every flag GoogleTest 1.12 (Debian 12) parses, by the kind of value it takes.
// args holds only --gtest_* words. Errors name the flag (exit 2). GTEST_REPEAT,
// GTEST_SHUFFLE, GTEST_OUTPUT and GTEST_COLOR count as the flags they stand for
// (XML_OUTPUT_FILE, Bazel's, as --gtest_output=xml:FILE when neither gives one);
// NO_COLOR (any non-empty value, no-color.org) without a color choice adds
// --gtest_color=no.
Result<GtestFlags> check_gtest_flags(const std::vector<std::string>& args, const Getenv& getenv);

// A flag (or value of one) that check_gtest_flags refuses: as `run --help` names it,
// and a word that is refused.
struct RefusedFlag {
  std::string form;     // "--gtest_repeat=N other than 1"
  std::string example;  // "--gtest_repeat=2"
};
// Every refused flag, read from the rules that refuse them (the variables' table,
// gtest_environment.h, then flagfile, internal_* and output=json), so the help
// cannot leave one out. Unknown flags are refused too.
std::vector<RefusedFlag> refused_gtest_flags();

}  // namespace aorta::app
