#include "app/cli.h"
#include "app/commands.h"
#include "app/gtest_filter.h"
#include "app/gtest_flags.h"

#include <algorithm>
#include <set>
#include <tuple>

#include <gtest/gtest.h>

namespace aorta::cli {
namespace {

TEST(Cli, RunOptionsAndGtestPassThrough) {
  Options o = parse({"--cluster_file", "c.json", "--config_file=v.json", "--output_dir", "out", "--gtest_filter=*single*"});
  EXPECT_TRUE(o.error.empty()) << o.error;
  EXPECT_EQ(o.command, Command::kRun);
  EXPECT_EQ(o.cluster_file, "c.json");
  EXPECT_EQ(o.config_file, "v.json");
  EXPECT_EQ(o.output_dir, "out");
  EXPECT_EQ(o.gtest_args, std::vector<std::string>{"--gtest_filter=*single*"});
  EXPECT_FALSE(parse({"--bogus"}).error.empty());
  EXPECT_FALSE(parse({"--cluster_file"}).error.empty());
}

// The CVS form: `run SUITE` and its report flags.
TEST(Cli, CvsCommandFormAndReportFlags) {
  Options o = parse({"run", "aorta_distributed", "--cluster_file", "c.json", "--html", "h.html", "--log-file=l.log",
                     "--junitxml", "j.xml", "--workspace", "ws", "--gtest_brief=1"});
  EXPECT_TRUE(o.error.empty()) << o.error;
  EXPECT_EQ(o.suite, "aorta_distributed");
  EXPECT_EQ(o.html_file, "h.html");
  EXPECT_EQ(o.log_file, "l.log");
  EXPECT_EQ(o.junitxml, "j.xml");
  EXPECT_EQ(o.workspace, "ws");
  EXPECT_FALSE(o.no_html || o.no_log_file);
  Options off = parse({"aorta_single", "--no-html", "--no-log-file"});
  EXPECT_TRUE(off.error.empty()) << off.error;
  EXPECT_EQ(off.suite, "aorta_single");
  EXPECT_TRUE(off.no_html && off.no_log_file);
  for (auto [args, words] : {std::pair<std::vector<std::string>, std::string>{{"run", "aorta_triple"}, "aorta_triple"},
                             {{"run", "aorta_single", "extra"}, "unknown argument: extra"},
                             {{"--html", "h", "--no-html"}, "contradict"},
                             {{"--no-log-file", "--log-file", "l"}, "contradict"},
                             {{"--junitxml", ""}, "--junitxml needs a path"},
                             {{"--workspace", ""}, "--workspace needs a path"},
                             {{"--html"}, "html"}}) {
    Options bad = parse(args);
    EXPECT_NE(bad.error.find(words), std::string::npos) << args.front() << ": " << bad.error;
  }
}

// Issue 32 (1): the JUnit file in CVS's shape on request.
TEST(Cli, JunitShapeIsGtestOrCvs) {
  EXPECT_EQ(parse({"--junit-shape", "cvs"}).junit_shape, "cvs");
  EXPECT_EQ(parse({"--junit-shape=gtest"}).junit_shape, "gtest");
  EXPECT_EQ(parse({}).junit_shape, "");
  EXPECT_EQ(parse({"--junit-shape", "pytest"}).error, "--junit-shape must be gtest (the default) or cvs, got 'pytest'");
}

TEST(Cli, VersionAnywhere) {
  EXPECT_EQ(parse({"--version"}).command, Command::kVersion);
  EXPECT_EQ(parse({"--gtest_filter=*", "--version"}).command, Command::kVersion);
  EXPECT_EQ(parse({"analyze", "t", "--version"}).command, Command::kVersion);
  EXPECT_EQ(parse({"config", "copy", "--version"}).command, Command::kVersion);
}

// Each command's --help is that command's, with its own options listed.
TEST(Cli, PerCommandHelp) {
  for (auto [word, command, option] : {std::tuple{"run", Command::kRun, "--cluster_file"},
                                       std::tuple{"analyze", Command::kAnalyze, "--include-unlinked-kernels"},
                                       std::tuple{"list", Command::kList, "--help"},
                                       std::tuple{"config", Command::kConfigCopy, "--output"}}) {
    Options o = parse({word, "--help"});
    EXPECT_TRUE(o.help) << word;
    EXPECT_TRUE(o.error.empty()) << word << ": " << o.error;
    EXPECT_EQ(o.command, command) << word;
    EXPECT_NE(command_help(o.command).find(option), std::string::npos) << word;
    EXPECT_NE(command_help(o.command).find(std::string("aorta_suite ") + word), std::string::npos) << word;
  }
  EXPECT_TRUE(parse({"analyze", "-h"}).help);
  EXPECT_EQ(parse({"--gtest_filter=x", "--help"}).command, Command::kHelp);
  EXPECT_EQ(parse({"help"}).command, Command::kHelp);
}

// run --help names every flag a run refuses (read from the rules that refuse them)
// and each one named is refused; fail-fast is the run's, not gtest's.
TEST(Cli, RunHelpNamesEveryRefusedGtestFlag) {
  const std::string help = command_help(Command::kRun);
  const auto refused = app::refused_gtest_flags();
  for (const char* form : {"--gtest_break_on_failure", "--gtest_catch_exceptions=0", "--gtest_stream_result_to=VALUE",
                           "--gtest_throw_on_failure", "--gtest_repeat=N other than 1", "--gtest_shuffle",
                           "--gtest_flagfile", "--gtest_internal_*", "--gtest_output=json"})
    EXPECT_TRUE(std::any_of(refused.begin(), refused.end(), [&](const auto& f) { return f.form == form; })) << form;
  const app::Getenv no_variables = [](const char*) -> const char* { return nullptr; };
  for (const auto& flag : refused) {
    EXPECT_NE(help.find(flag.form), std::string::npos) << flag.form << "\n" << help;
    EXPECT_FALSE(app::check_gtest_flags({flag.example}, no_variables)) << flag.example;
  }
  EXPECT_EQ(help.find("--gtest_fail_fast, ... as in gtest"), std::string::npos) << help;
}

// Usage errors name the flag; no abbreviation is taken for a flag.
TEST(Cli, UsageErrorsNameTheFlag) {
  EXPECT_NE(parse({"--cluster_file"}).error.find("--cluster_file"), std::string::npos);
  EXPECT_NE(parse({"--cluster"}).error.find("unknown argument: --cluster"), std::string::npos);
  EXPECT_NE(parse({"--config_file", "a", "--config_file", "b"}).error.find("--config_file"), std::string::npos);
  EXPECT_NE(parse({"analyze", "t", "--jobs"}).error.find("--jobs"), std::string::npos);
  EXPECT_NE(parse({"analyze", "t", "--jobs", "4x"}).error.find("--jobs"), std::string::npos);
  EXPECT_NE(parse({"analyze", "t", "--bogus"}).error.find("--bogus"), std::string::npos);
  EXPECT_NE(parse({"analyze", "t", "u"}).error.find("unknown argument: u"), std::string::npos);
  EXPECT_NE(parse({"list", "a", "b"}).error.find("at most one suite"), std::string::npos);
  EXPECT_NE(parse({"config", "copy", "x", "--output"}).error.find("--output"), std::string::npos);
  EXPECT_NE(parse({"stray"}).error.find("unknown argument: stray"), std::string::npos);
  Options run = parse({"run", "--config_file", "v.json", "--gtest_brief=1"});
  EXPECT_TRUE(run.error.empty()) << run.error;
  EXPECT_EQ(run.config_file, "v.json");
  EXPECT_EQ(run.gtest_args, std::vector<std::string>{"--gtest_brief=1"});
}

TEST(Cli, Subcommands) {
  EXPECT_EQ(parse({"list", "aorta_single"}).suite, "aorta_single");
  EXPECT_EQ(parse({"config", "list"}).command, Command::kConfigList);
  Options copy = parse({"config", "copy", "x.json", "--output", "y.json"});
  EXPECT_EQ(copy.command, Command::kConfigCopy);
  EXPECT_EQ(copy.output, "y.json");
  EXPECT_FALSE(parse({"config", "copy", "x.json"}).error.empty());
  Options a = parse({"analyze", "traces", "--jobs", "4", "--include-unlinked-kernels", "--output=o.json"});
  EXPECT_TRUE(a.error.empty());
  EXPECT_EQ(a.jobs, 4);
  EXPECT_TRUE(a.include_unlinked);
  EXPECT_EQ(a.trace_dir, "traces");
  EXPECT_FALSE(parse({"analyze"}).error.empty());
  EXPECT_FALSE(parse({"analyze", "t", "--jobs", "0"}).error.empty());
  EXPECT_EQ(parse({"analyze", "t"}).jobs, 0);  // one per core
  EXPECT_EQ(parse({"--help"}).command, Command::kHelp);
}

TEST(Cli, ConfigImportTakesTheYamlAndAnOptionalOutput) {
  Options plain = parse({"config", "import", "aorta_benchmark.yaml"});
  EXPECT_EQ(plain.command, Command::kConfigImport);
  EXPECT_TRUE(plain.error.empty()) << plain.error;
  EXPECT_EQ(plain.config_name, "aorta_benchmark.yaml");
  EXPECT_EQ(plain.output, "");  // the YAML's name with .json, here
  EXPECT_EQ(parse({"config", "import", "a.yaml", "-o", "b.json"}).output, "b.json");
  EXPECT_EQ(parse({"config", "import"}).error, "usage: aorta_suite config import FILE.yaml [--output FILE.json]");
  EXPECT_EQ(parse({"config", "import", "a.yaml", "b.yaml"}).error, "unknown argument: b.yaml");
  EXPECT_EQ(parse({"config", "move", "a"}).error, "usage: aorta_suite config copy NAME --output FILE");
}

// One row per command, each word picking one row: the parser, the help and the
// dispatch read the same table.
TEST(Commands, EveryCommandHasOneRow) {
  std::set<Command> seen;
  std::set<std::string> words;
  for (const auto& row : command_rows()) {
    EXPECT_TRUE(seen.insert(row.command).second) << row.help_words;
    if (row.word) {
      EXPECT_TRUE(words.insert(row.word).second) << row.word;
    }
    EXPECT_TRUE(row.help && row.run) << row.help_words;
    EXPECT_EQ(&command_row(row.command), &row);
  }
  EXPECT_EQ(seen.size(), 10u);  // Command's values, kRun .. kHistory
  for (const auto& row : command_rows()) {
    if (row.word && row.parse) {
      EXPECT_EQ(parse({row.word, "--help"}).command, row.command) << row.word;
    }
  }
}

TEST(Cli, GtestFilterSemantics) {
  EXPECT_TRUE(filter_matches("*distributed*", "aorta_distributed.test_setup_rdma"));
  EXPECT_FALSE(filter_matches("*distributed*", "aorta_single.test_teardown"));
  EXPECT_TRUE(filter_matches("aorta_single.*:aorta_x.*", "aorta_single.test_teardown"));
  EXPECT_FALSE(filter_matches("*-*teardown", "aorta_single.test_teardown"));
  EXPECT_TRUE(filter_matches("-*teardown", "aorta_single.test_analyze"));
  EXPECT_TRUE(filter_matches("aorta_single.test_?nalyze", "aorta_single.test_analyze"));
}

}  // namespace
}  // namespace aorta::cli
