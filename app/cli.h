// aorta_suite's own command line (Boost.Program_options), parsed before GoogleTest
// sees the rest: the --gtest_* words are collected for app/gtest_flags.h.
#pragma once

#include <string>
#include <vector>

#include "app/pytest_args.h"

namespace aorta::cli {

enum class Command { kRun, kHelp, kVersion, kList, kConfigCopy, kConfigList, kConfigImport, kAnalyze, kCompare, kHistory };

struct Options {
  Command command = Command::kRun;
  bool help = false;  // --help after a command: that command's help
  std::string error;  // set: a usage error (exit 2)
  // run
  std::string cluster_file;
  std::string config_file;
  std::string output_dir;
  std::vector<std::string> gtest_args;  // --gtest_* flags, as given, and those pytest's -q and -x stand for
  PytestArgs pytest;                    // the pytest arguments `cvs run` passes on (pytest_args.h)
  // CVS's report flags: where the HTML, log and JUnit files go, and the workspace
  // whose cvs_runs/<run-id>/ holds the reports (empty: not given).
  std::string html_file;
  std::string log_file;
  bool no_html = false;
  bool no_log_file = false;
  std::string junitxml;
  std::string junit_shape;  // --junit-shape: gtest | cvs (empty: the config's, else gtest)
  std::string workspace;
  std::string baseline;  // --baseline: a report to compare the run with in the Run Deck
  // run: the suite named as CVS names it (run aorta_single); list: the suite to list
  std::string suite;
  // config copy NAME, config import FILE.yaml (config_name); --output
  std::string config_name;
  std::string output;
  // analyze
  std::string trace_dir;
  bool include_unlinked = false;
  bool every_rank = false;  // --ranks all: the table lists every rank
  int jobs = 0;  // 0: one per core
  // compare: BASELINE CANDIDATE, and --max-regression PCT or KEY=PCT (repeatable)
  std::vector<std::string> compare_paths;
  std::vector<std::string> max_regression;
  // history ROOT [--last N]; run --history ROOT (the Run Deck's recent runs) [--baseline-runs K] [--html FILE] (html_file), --output, --max-regression PCT
  std::string history_root;
  int history_last = 20;
  int history_baseline_runs = 5;
};

// The command its first word names (app/commands.h), else a run; its arguments read.
Options parse(const std::vector<std::string>& args);

// Each command's own arguments (the words after its name) into o; each leaves o alone
// when o.help is set (the command's help is printed instead).
void parse_run(const std::vector<std::string>& args, Options& o);
void parse_list(const std::vector<std::string>& args, Options& o);
void parse_config(const std::vector<std::string>& args, Options& o);  // list, copy and import
void parse_analyze(const std::vector<std::string>& args, Options& o);
void parse_compare(const std::vector<std::string>& args, Options& o);
void parse_history(const std::vector<std::string>& args, Options& o);

}  // namespace aorta::cli
