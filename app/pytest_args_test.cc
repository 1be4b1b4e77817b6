// The pytest arguments `cvs run` passes on, taken here by their nearest meaning.
#include "app/pytest_args.h"

#include <gtest/gtest.h>

#include "app/cli.h"
#include "app/commands.h"

namespace aorta::cli {
namespace {

// The run's own options with a value (--html PATH) keep their value.
bool html_takes_value(const std::string& word) { return word == "--html"; }

PytestArgs taken(std::vector<std::string>& args) {
  auto out = take_pytest_args(args, html_takes_value);
  EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message);
  return out.ok() ? *out : PytestArgs{};
}

TEST(PytestArgs, TakesCvsUsersArgumentsAndLeavesTheRestInOrder) {
  std::vector<std::string> args = {"aorta_single", "-v", "-s", "--capture=tee-sys", "--html", "-x", "--maxfail",
                                   "2", "-k", "benchmark or teardown", "--gtest_brief=1", "--", "-q"};
  PytestArgs a = taken(args);
  EXPECT_EQ(args, (std::vector<std::string>{"aorta_single", "--html", "-x", "--gtest_brief=1", "--", "-q"}));
  EXPECT_EQ(a.verbosity, 1);
  EXPECT_EQ(a.capture, "tee-sys");  // the last one given
  EXPECT_TRUE(a.exit_first);        // --maxfail 2 (the -x was --html's value)
  EXPECT_EQ(a.fail_words, "--maxfail=2");
  EXPECT_EQ(a.capture_words, "-s, --capture=tee-sys");
  ASSERT_TRUE(a.keyword);
  EXPECT_EQ(a.keyword->text(), "benchmark or teardown");
}

// pytest's verbosity: each -v adds one, each -q takes one; short ones combine.
TEST(PytestArgs, ShortOnesCombineAsInPytest) {
  for (auto [words, verbosity, capture, exit_first, keyword] :
       std::vector<std::tuple<std::vector<std::string>, int, std::string, bool, std::string>>{
           {{"-vvv"}, 3, "", false, ""},
           {{"-vs"}, 1, "no", false, ""},
           {{"-xvs"}, 1, "no", true, ""},
           {{"-q", "-q", "--verbose"}, -1, "", false, ""},
           {{"--quiet", "--exitfirst"}, -1, "", true, ""},
           {{"-kteardown"}, 0, "", false, "teardown"},
           {{"-k=teardown"}, 0, "", false, "teardown"},
           {{"-vk", "not teardown"}, 1, "", false, "not teardown"},
           {{"--capture", "fd", "--maxfail=0"}, 0, "fd", false, ""}}) {
    std::vector<std::string> args = words;
    PytestArgs a = taken(args);
    EXPECT_TRUE(args.empty()) << words.front();
    EXPECT_EQ(a.verbosity, verbosity) << words.front();
    EXPECT_EQ(a.capture, capture) << words.front();
    EXPECT_EQ(a.exit_first, exit_first) << words.front();
    EXPECT_EQ(a.keyword ? a.keyword->text() : "", keyword) << words.front();
  }
}

TEST(PytestArgs, ABadValueIsRefusedNamingTheArgument) {
  for (auto [words, error] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--capture=tee-merged"}, "--capture=tee-merged: pytest's capture methods are fd, sys, no and tee-sys"},
           {{"--capture"}, "--capture needs a value (--capture=tee-sys)"},
           {{"--maxfail=-1"}, "--maxfail=-1: needs a whole number >= 0 (0: no limit)"},
           {{"--maxfail", "two"}, "--maxfail=two: needs a whole number >= 0 (0: no limit)"},
           {{"-k"}, "-k needs an expression (-k 'benchmark or teardown')"},
           {{"--verbose=2"}, "--verbose takes no value: --verbose=2"},
           {{"-k", "a and"}, "Wrong expression passed to '-k': a and: at column 6: expected not OR left parenthesis "
                             "OR identifier; got end of input"}}) {
    std::vector<std::string> args = words;
    auto a = take_pytest_args(args, html_takes_value);
    ASSERT_FALSE(a.ok()) << words.front();
    EXPECT_EQ(a.error().message, error);
  }
}

// The command line: -q and -x are gtest flags, anything else of pytest's is refused by name.
TEST(PytestArgs, TheRunCommandLineTakesThemAndRefusesTheRest) {
  Options o = parse({"run", "aorta_single", "-v", "-s", "--capture=tee-sys", "--config_file", "v.json", "-q", "-q",
                     "-x", "-k", "teardown"});
  EXPECT_TRUE(o.error.empty()) << o.error;
  EXPECT_EQ(o.suite, "aorta_single");
  EXPECT_EQ(o.config_file, "v.json");
  EXPECT_EQ(o.gtest_args, (std::vector<std::string>{"--gtest_brief=1", "--gtest_fail_fast"}));
  // A gtest flag given wins over the one a pytest argument stands for.
  EXPECT_EQ(parse({"-q", "--gtest_brief=0", "-x", "--gtest_fail_fast=0"}).gtest_args,
            (std::vector<std::string>{"--gtest_brief=0", "--gtest_fail_fast=0"}));
  EXPECT_EQ(parse({"-k", "x", "--gtest_filter=*"}).error,
            "-k and --gtest_filter both select tests: give one (-k takes pytest's expression, --gtest_filter gtest's "
            "globs)");
  // run --help lists them.
  for (const char* word : {"-v, -vv, -vvv", "-q, --quiet", "--capture=fd|sys|no|tee-sys", "--maxfail=N", "-k EXPR"})
    EXPECT_NE(command_help(Command::kRun).find(word), std::string::npos) << word;
  for (const char* other : {"-m", "--tb=short", "-rA", "--lf", "-p"}) {
    const std::string error = parse({"run", "aorta_single", other}).error;
    EXPECT_EQ(error.rfind(std::string("unknown argument: ") + other + " (", 0), 0u) << error;
    EXPECT_NE(error.find("-v, -q, -s, --capture, -x, --maxfail and -k are taken"), std::string::npos) << error;
  }
}

TEST(PytestArgs, OneLineSaysWhatEachMeans) {
  std::vector<std::string> none;
  EXPECT_EQ(pytest_args_line(taken(none)), "");
  std::vector<std::string> args = {"-vv", "--capture=tee-sys", "--maxfail=0", "-k", "teardown"};
  const std::string line = pytest_args_line(taken(args));
  EXPECT_EQ(line.find('\n'), std::string::npos);
  for (const char* part : {"aorta_suite: pytest arguments taken as: -vv: each test and its outcome are printed",
                           "; --capture=tee-sys: nothing is captured", "; --maxfail=0: no limit, pytest's default",
                           "; -k 'teardown': runs the stages and sub-tests whose names it matches"})
    EXPECT_NE(line.find(part), std::string::npos) << part << "\n" << line;
  std::vector<std::string> quiet = {"-q", "-x"};
  const std::string brief = pytest_args_line(taken(quiet));
  EXPECT_NE(brief.find("-q: --gtest_brief=1, only failures"), std::string::npos) << brief;
  EXPECT_NE(brief.find("-x: --gtest_fail_fast"), std::string::npos) << brief;
}

}  // namespace
}  // namespace aorta::cli
