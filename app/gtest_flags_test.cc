#include "app/gtest_flags.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "app/gtest_environment.h"

namespace aorta::app {
namespace {

// An environment of exactly these variables.
Getenv env(std::map<std::string, std::string> vars = {}) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

std::string error_of(const std::vector<std::string>& args, Getenv e = env()) {
  auto r = check_gtest_flags(args, e);
  return r ? "" : r.error().describe();
}

TEST(GtestFlags, KnownFlagsPassThroughFilterAndOutputAreTakenOut) {
  auto r = check_gtest_flags({"--gtest_filter=a.*", "--gtest_brief=1", "--gtest_print_time=0", "--gtest_color=yes",
                              "--gtest_also_run_disabled_tests", "--gtest_random_seed=7", "--gtest_fail_fast",
                              "--gtest_output=xml:j.xml", "--gtest_repeat=1", "--gtest_shuffle=0",
                              "--gtest_filter=b.*"},
                             env({{"NO_COLOR", "1"}}));
  ASSERT_TRUE(r) << r.error().describe();
  EXPECT_EQ(*r->filter, "b.*");  // the last one, as gtest
  EXPECT_EQ(r->pass_through,
            (std::vector<std::string>{"--gtest_brief=1", "--gtest_print_time=0", "--gtest_color=yes",
                                      "--gtest_also_run_disabled_tests", "--gtest_random_seed=7",
                                      "--gtest_repeat=1", "--gtest_shuffle=0"}));
  EXPECT_EQ(r->junit->file_for("aorta_single"), "j.xml");
  EXPECT_FALSE(r->list_tests);
  EXPECT_TRUE(r->fail_fast);  // the run's, never gtest's
}

// Issue 31, 1: fail-fast is taken by the run (gtest's skips teardown unrun and breaks
// the JUnit names), from the flag or gtest's variable, the flag winning.
TEST(GtestFlags, FailFastIsTheRunsFromTheFlagOrTheVariable) {
  auto fail_fast = [](const std::vector<std::string>& args, Getenv e) {
    auto r = check_gtest_flags(args, e);
    if (!r) {
      ADD_FAILURE() << r.error().describe();
      return false;
    }
    for (const auto& a : r->pass_through) EXPECT_EQ(a.find("fail_fast"), std::string::npos) << a;
    return r->fail_fast;
  };
  EXPECT_FALSE(fail_fast({}, env()));
  EXPECT_TRUE(fail_fast({"--gtest_fail_fast=1"}, env()));
  EXPECT_FALSE(fail_fast({"--gtest_fail_fast=0"}, env()));
  EXPECT_TRUE(fail_fast({}, env({{"GTEST_FAIL_FAST", "1"}})));
  EXPECT_TRUE(fail_fast({}, env({{"GTEST_FAIL_FAST", "yes"}})));
  EXPECT_FALSE(fail_fast({}, env({{"GTEST_FAIL_FAST", "0"}})));
  EXPECT_TRUE(fail_fast({}, env({{"GTEST_FAIL_FAST", ""}})));  // set and empty: true, as gtest reads it
  EXPECT_FALSE(fail_fast({"--gtest_fail_fast=false"}, env({{"GTEST_FAIL_FAST", "1"}})));
}

TEST(GtestFlags, RepeatOtherThanOneIsRefused) {
  for (const char* flag : {"--gtest_repeat=2", "--gtest_repeat=-1", "--gtest_repeat=0"}) {
    std::string e = error_of({flag});
    EXPECT_NE(e.find(std::string(flag) + " is refused"), std::string::npos) << e;
    EXPECT_NE(e.find("run the command N times"), std::string::npos) << e;
  }
  EXPECT_NE(error_of({"--gtest_repeat=x"}).find("--gtest_repeat=x: not a whole number"), std::string::npos);
  EXPECT_NE(error_of({"--gtest_repeat"}).find("--gtest_repeat needs a value"), std::string::npos);
  EXPECT_NE(error_of({}, env({{"GTEST_REPEAT", "3"}})).find("GTEST_REPEAT=3 is refused"), std::string::npos);
  EXPECT_EQ(error_of({"--gtest_repeat=1"}, env({{"GTEST_REPEAT", "1"}})), "");
}

TEST(GtestFlags, ShuffleIsRefused) {
  for (const char* flag : {"--gtest_shuffle", "--gtest_shuffle=1", "--gtest_shuffle=true"})
    EXPECT_NE(error_of({flag}).find(std::string(flag) + " is refused: the stages run in order"), std::string::npos)
        << flag;
  EXPECT_EQ(error_of({"--gtest_shuffle=false"}), "");
  EXPECT_NE(error_of({}, env({{"GTEST_SHUFFLE", "1"}})).find("GTEST_SHUFFLE=1 is refused"), std::string::npos);
  EXPECT_EQ(error_of({}, env({{"GTEST_SHUFFLE", "0"}})), "");
}

// Issue 29, 10: flags that would end the process at a failure (SIGTRAP, SIGABRT, an
// exception) are refused with the reason, as flags and as gtest's variables; off, they pass.
TEST(GtestFlags, FlagsThatAbortAreRefused) {
  for (const char* flag : {"--gtest_break_on_failure", "--gtest_break_on_failure=1", "--gtest_throw_on_failure",
                           "--gtest_stream_result_to=localhost:1"}) {
    std::string e = error_of({flag});
    EXPECT_EQ(e.rfind(std::string(flag) + " is refused: ", 0), 0u) << flag << ": " << e;
    EXPECT_NE(e.find("reports and teardown"), std::string::npos) << e;
  }
  EXPECT_NE(error_of({"--gtest_break_on_failure"}).find("SIGTRAP"), std::string::npos);
  EXPECT_EQ(error_of({"--gtest_break_on_failure=0", "--gtest_throw_on_failure=false"}), "");
  EXPECT_EQ(error_of({}, env({{"GTEST_BREAK_ON_FAILURE", "1"}})).rfind("GTEST_BREAK_ON_FAILURE=1 is refused: ", 0), 0u);
  EXPECT_EQ(error_of({}, env({{"GTEST_THROW_ON_FAILURE", "1"}})).rfind("GTEST_THROW_ON_FAILURE=1 is refused", 0), 0u);
  EXPECT_EQ(error_of({}, env({{"GTEST_STREAM_RESULT_TO", "h:1"}})).rfind("GTEST_STREAM_RESULT_TO=h:1 is refused", 0), 0u);
  EXPECT_EQ(error_of({}, env({{"GTEST_BREAK_ON_FAILURE", "0"}})), "");
  EXPECT_EQ(error_of({}, env({{"GTEST_TOTAL_SHARDS", "2"}, {"GTEST_SHARD_INDEX", "0"}}))
                .rfind("GTEST_TOTAL_SHARDS=2 is refused: the stages of a run are one session", 0),
            0u);
}

TEST(GtestFlags, UnknownInternalAndFlagfileAreRefusedByName) {
  EXPECT_NE(error_of({"--gtest_filtr=x"}).find("unknown GoogleTest flag --gtest_filtr"), std::string::npos);
  EXPECT_NE(error_of({"--gtest_list_test"}).find("unknown GoogleTest flag --gtest_list_test"), std::string::npos);
  EXPECT_NE(error_of({"--gtest_internal_run_death_test=x"}).find("--gtest_internal_run_death_test is GoogleTest-internal"),
            std::string::npos);
  EXPECT_NE(error_of({"--gtest_flagfile=f"}).find("--gtest_flagfile is not supported"), std::string::npos);
  EXPECT_NE(error_of({"--gtest_filter"}).find("--gtest_filter needs a value"), std::string::npos);
}

TEST(GtestFlags, NoColorMeansColorNoUnlessColorIsChosen) {
  auto has_no = [](const Result<GtestFlags>& r) {
    for (const auto& a : r->pass_through)
      if (a == "--gtest_color=no") return true;
    return false;
  };
  EXPECT_TRUE(has_no(check_gtest_flags({}, env({{"NO_COLOR", "1"}}))));
  EXPECT_TRUE(has_no(check_gtest_flags({}, env({{"NO_COLOR", "anything"}}))));
  EXPECT_FALSE(has_no(check_gtest_flags({}, env({{"NO_COLOR", ""}}))));  // empty: not set, per no-color.org
  EXPECT_FALSE(has_no(check_gtest_flags({}, env())));
  EXPECT_FALSE(has_no(check_gtest_flags({"--gtest_color=yes"}, env({{"NO_COLOR", "1"}}))));
  EXPECT_FALSE(has_no(check_gtest_flags({}, env({{"NO_COLOR", "1"}, {"GTEST_COLOR", "yes"}}))));
}

TEST(GtestFlags, OutputFollowsGtestsNaming) {
  auto junit = [](const std::string& value, Getenv e = env()) {
    auto r = check_gtest_flags({"--gtest_output=" + value}, e);
    return r && r->junit ? r->junit->file_for("aorta_single").string() : "";
  };
  EXPECT_EQ(junit("xml"), "test_detail.xml");  // gtest's default, in the current folder
  EXPECT_EQ(junit("xml:out/j.xml"), "out/j.xml");
  EXPECT_EQ(junit("xml:out/"), "out/aorta_single.xml");
  EXPECT_NE(error_of({"--gtest_output=json"}).find("--gtest_output=json is not supported"), std::string::npos);
  EXPECT_NE(error_of({"--gtest_output=json:x.json"}).find("not supported"), std::string::npos);
  EXPECT_NE(error_of({"--gtest_output=html:x"}).find("unknown format 'html'"), std::string::npos);
  auto from_env = check_gtest_flags({}, env({{"GTEST_OUTPUT", "xml:e.xml"}}));
  EXPECT_EQ(from_env->junit->file_for("s"), "e.xml");
  EXPECT_NE(error_of({}, env({{"GTEST_OUTPUT", "json"}})).find("GTEST_OUTPUT=json is not supported"), std::string::npos);
  EXPECT_FALSE(check_gtest_flags({}, env())->junit);
}

// Issue 29 (11): XML_OUTPUT_FILE, as gtest reads it (Bazel sets it): the JUnit file
// when neither --gtest_output nor GTEST_OUTPUT names one.
TEST(GtestFlags, XmlOutputFileIsTheJunitFileLast) {
  EXPECT_EQ(check_gtest_flags({}, env({{"XML_OUTPUT_FILE", "out/b.xml"}}))->junit->file_for("s"), "out/b.xml");
  EXPECT_EQ(check_gtest_flags({}, env({{"XML_OUTPUT_FILE", "out/"}}))->junit->file_for("s"), "out/s.xml");
  EXPECT_EQ(check_gtest_flags({}, env({{"XML_OUTPUT_FILE", "b.xml"}, {"GTEST_OUTPUT", "xml:e.xml"}}))
                ->junit->file_for("s"),
            "e.xml");
  EXPECT_EQ(check_gtest_flags({"--gtest_output=xml:f.xml"}, env({{"XML_OUTPUT_FILE", "b.xml"}}))->junit->file_for("s"),
            "f.xml");
  EXPECT_FALSE(check_gtest_flags({}, env({{"XML_OUTPUT_FILE", ""}}))->junit);
}

// gtest reads an empty GTEST_SHUFFLE as true, and GTEST_FILTER as the filter.
TEST(GtestFlags, EnvironmentAsGtestReadsIt) {
  EXPECT_FALSE(check_gtest_flags({}, env({{"GTEST_SHUFFLE", ""}})));
  EXPECT_TRUE(check_gtest_flags({}, env({{"GTEST_SHUFFLE", "0"}})));
  EXPECT_EQ(check_gtest_flags({}, env({{"GTEST_FILTER", "*teardown*"}}))->filter, "*teardown*");
  EXPECT_EQ(check_gtest_flags({"--gtest_filter=*launch*"}, env({{"GTEST_FILTER", "*teardown*"}}))->filter, "*launch*");
}

TEST(GtestFlags, ListTestsReadsLikeGtest) {
  EXPECT_TRUE(check_gtest_flags({"--gtest_list_tests"}, env())->list_tests);
  EXPECT_TRUE(check_gtest_flags({"--gtest_list_tests=1"}, env())->list_tests);
  EXPECT_FALSE(check_gtest_flags({"--gtest_list_tests=0"}, env())->list_tests);
}

// Issue 45, 8: CI that sets GTEST_OUTPUT=json: for every gtest binary lists the tests;
// a listing writes no file, so the output it names is neither refused nor taken. A run
// still refuses it.
TEST(GtestFlags, ListingTakesNoOutputSoAnyOutputSettingIsLeftAlone) {
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"GTEST_OUTPUT", "json:/tmp/x.json"}, {"GTEST_OUTPUT", "yaml"}, {"XML_OUTPUT_FILE", "b.xml"}}) {
    auto listed = check_gtest_flags({"--gtest_list_tests"}, env({{name, value}}));
    ASSERT_TRUE(listed) << name << "=" << value << ": " << listed.error().describe();
    EXPECT_FALSE(listed->junit) << name;
  }
  EXPECT_TRUE(check_gtest_flags({"--gtest_list_tests", "--gtest_output=json:l.json"}, env()));
  EXPECT_NE(error_of({}, env({{"GTEST_OUTPUT", "json:/tmp/x.json"}})).find("is not supported"), std::string::npos);
}

// Issue 42, 7: every variable GoogleTest reads, read as gtest reads it, an empty value
// included (gtest's bool is true for any value but "0"; its int32 that does not parse
// prints gtest's own error). Each row of gtest_environment.h's table is tried with the
// values that its rule must take and refuse; the table is checked against gtest's source.
// check_gtest_flags' answer for one variable: "" when taken, else the error.
std::string error_for(const std::string& name, const std::string& value) {
  auto r = check_gtest_flags({}, env({{name, value}}));
  return r ? "" : r.error().describe();
}

// What each rule must refuse and take; the empty value is in every list.
struct Values {
  std::vector<std::string> refused, taken;
};
Values values_of(EnvRule rule) {
  switch (rule) {
    case EnvRule::kRefusedTrue: return {{"", "1", "false", "no"}, {"0"}};  // gtest: only "0" is false
    case EnvRule::kRefusedFalse: return {{"0"}, {"", "1", "false"}};
    case EnvRule::kRefusedNonEmpty: return {{"h:1", " "}, {""}};
    case EnvRule::kWholeNumber: return {{"", "x", "7x", "2147483648"}, {"7", "-3", "2147483647"}};
    case EnvRule::kOnlyOne: return {{"", "x", "0", "2"}, {"1"}};
    case EnvRule::kRefusedSet: return {{"", "x", "0", "1", "2"}, {}};
    default: return {{}, {"", "0", "1", "garbage"}};
  }
}

TEST(GtestEnvironment, EveryVariableIsRefusedOrTakenAsItsRuleSaysEmptyIncluded) {
  for (const auto& v : gtest_variables()) {
    if (v.rule == EnvRule::kTaken || v.rule == EnvRule::kRunnerFile) continue;  // their own tests
    const Values values = values_of(v.rule);
    for (const auto& value : values.refused) {
      const std::string e = error_for(v.name, value);
      // Our message, naming the variable and its value, before anything runs.
      const std::string shown = v.name + "=" + value;
      EXPECT_TRUE(e.rfind(shown + " is refused: ", 0) == 0 || e.rfind(shown + ": not a whole number", 0) == 0)
          << v.name << "='" << value << "': " << e;
    }
    for (const auto& value : values.taken) EXPECT_EQ(error_for(v.name, value), "") << v.name << "='" << value << "'";
  }
}

// Probe 02: set but empty, gtest reads these as true and ends the process at the
// first failure; probe 07's sharding variables, empty, ended in gtest's own error.
TEST(GtestEnvironment, EmptyAbortAndShardingVariablesAreRefusedByName) {
  for (const char* name : {"GTEST_BREAK_ON_FAILURE", "GTEST_THROW_ON_FAILURE"}) {
    const std::string e = error_for(name, "");
    EXPECT_EQ(e.rfind(std::string(name) + "= is refused: ", 0), 0u) << e;
    EXPECT_NE(e.find("the aorta_path lock"), std::string::npos) << e;
  }
  for (const char* name : {"GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX"})
    for (const char* value : {"", "abc"}) {
      const std::string e = error_for(name, value);
      EXPECT_EQ(e.rfind(std::string(name) + "=" + value + " is refused: the stages of a run are one session", 0), 0u)
          << e;
    }
  EXPECT_EQ(error_for("GTEST_RANDOM_SEED", "").rfind("GTEST_RANDOM_SEED=: not a whole number", 0), 0u);
  EXPECT_EQ(error_for("GTEST_CATCH_EXCEPTIONS", "0").rfind("GTEST_CATCH_EXCEPTIONS=0 is refused: an exception", 0), 0u);
}

// A flag's value is refused by its variable's rule, for the same reason.
TEST(GtestEnvironment, FlagsFollowTheirVariablesRule) {
  auto error_of = [](const std::string& flag) {
    auto r = check_gtest_flags({flag}, env({}));
    return r ? "" : r.error().describe();
  };
  EXPECT_EQ(error_of("--gtest_catch_exceptions=0").rfind("--gtest_catch_exceptions=0 is refused: an exception", 0), 0u);
  EXPECT_EQ(error_of("--gtest_catch_exceptions"), "");
  EXPECT_EQ(error_of("--gtest_stream_result_to="), "");
  EXPECT_EQ(error_of("--gtest_random_seed=2147483648"), "--gtest_random_seed=2147483648: not a whole number");
}

// Taken by the run as gtest takes them: an empty filter selects nothing, Bazel's
// filter and fail-fast when gtest's are unset, GTEST_OUTPUT set empty means no file.
TEST(GtestEnvironment, TakenVariablesReadAsGtestReadsThem) {
  EXPECT_EQ(check_gtest_flags({}, env({{"GTEST_FILTER", ""}}))->filter, "");
  EXPECT_EQ(check_gtest_flags({}, env({{"TESTBRIDGE_TEST_ONLY", "*launch*"}}))->filter, "*launch*");
  EXPECT_EQ(check_gtest_flags({}, env({{"TESTBRIDGE_TEST_ONLY", "a"}, {"GTEST_FILTER", "b"}}))->filter, "b");
  EXPECT_TRUE(check_gtest_flags({}, env({{"TESTBRIDGE_TEST_RUNNER_FAIL_FAST", "1"}}))->fail_fast);
  EXPECT_FALSE(check_gtest_flags({}, env({{"TESTBRIDGE_TEST_RUNNER_FAIL_FAST", "yes"}}))->fail_fast);  // only "1"
  EXPECT_FALSE(
      check_gtest_flags({}, env({{"TESTBRIDGE_TEST_RUNNER_FAIL_FAST", "1"}, {"GTEST_FAIL_FAST", "0"}}))->fail_fast);
  EXPECT_FALSE(check_gtest_flags({}, env({{"GTEST_OUTPUT", ""}, {"XML_OUTPUT_FILE", "b.xml"}}))->junit);
}

// Every variable gtest's own source reads is in the table (Debian's googletest package
// ships the source the linked library is built from).
TEST(GtestEnvironment, TheTableHoldsEveryVariableGtestsSourceReads) {
  const std::filesystem::path src = "/usr/src/googletest/googletest/src";
  if (!std::filesystem::exists(src / "gtest.cc")) GTEST_SKIP() << "no googletest source at " << src;
  std::set<std::string> in_table;
  for (const auto& v : gtest_variables()) in_table.insert(v.name);
  const std::regex flag_read(R"re(FromGTestEnv\(\s*"([a-z_0-9]+)")re"), env_read(R"re(GetEnv\("([A-Z_0-9]+)"\))re"),
      constant(R"re(static const char k\w+\[\] = "([A-Z_0-9]+)";)re");
  size_t found = 0;
  for (const auto& file : std::filesystem::directory_iterator(src)) {
    std::ifstream in(file.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    for (const auto* re : {&flag_read, &env_read, &constant})
      for (std::sregex_iterator it(source.begin(), source.end(), *re), end; it != end; ++it) {
        std::string name = (*it)[1];
        if (re == &flag_read) {
          for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
          name = "GTEST_" + name;
        }
        if (re == &constant && name.rfind("GTEST_", 0) != 0) continue;  // kDefaultOutputFormat and the like
        ++found;
        EXPECT_TRUE(in_table.count(name)) << name << " (read in " << file.path().filename() << ") has no row";
      }
  }
  EXPECT_GT(found, 20u);  // the scan found gtest's variables at all
}

}  // namespace
}  // namespace aorta::app
