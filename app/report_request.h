// Where the user asked for the reports (CVS's --workspace/CVS_WORKSPACE, --html,
// --log-file, --no-html, --no-log-file, --junitxml, and gtest's --gtest_output=xml),
// turned into the report pipeline's context for a run, or into the reports of a run
// that could not start.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/cli.h"
#include "app/gtest_flags.h"
#include "app/runner_files.h"
#include "report/outputs.h"

namespace aorta::app {

struct ReportRequest {
  std::filesystem::path workspace;  // empty: reports in the run's folder
  std::filesystem::path html_file;  // empty: the report folder's <suite>.html
  std::filesystem::path log_file;
  std::vector<std::filesystem::path> junit_files;  // asked for by name; the suite fills a gtest folder
  std::optional<JunitOutput> gtest_junit;
  std::string junit_shape;  // --junit-shape, else the config's junit_shape (empty: gtest)
  std::vector<std::string> outputs;  // report/outputs.h names, less what --no-html/--no-log-file drop
  std::vector<RunnerFile> runner_files;  // what a test runner has gtest write (runner_files.h)

  bool wants(const std::string& output) const;
  std::vector<std::filesystem::path> junit_paths(const std::string& suite) const;
  // <workspace>/cvs_runs/<name> with a workspace, else the run's own folder; the name
  // is the run folder's (the run id, or inside a job the job's: slurm/run_folder.h).
  std::filesystem::path report_dir(const std::string& name, const std::filesystem::path& run_folder) const;
};

// Paths made absolute against where the command ran; getenv reads CVS_WORKSPACE and
// the runner files' variables, which are then unset in this process (runner_files.h).
ReportRequest report_request(const cli::Options& o, const GtestFlags& flags, const char* (*getenv)(const char*));

// The setup of a run's reports, whose folder is run_folder unless a workspace is given
// (then its cvs_runs/<name>: see report_dir).
// The run's folder, and the workspace's report folder when it is another, each made
// and probed before any node is touched (an existing file, a read-only or full disk is
// found then, not after the benchmark): the first that cannot take files ("output_dir"
// or "the workspace") and why, or nothing.
std::optional<std::pair<std::string, std::string>> output_folder_problem(const std::filesystem::path& output_root,
                                                                         const std::filesystem::path& report_dir);

report::ReportSetup report_setup(const ReportRequest& request, const std::string& suite, const std::string& name,
                                 const std::filesystem::path& run_folder);

// Every report file asked for by path (--junitxml, --gtest_output or the variable
// that gave it, --html and the HTML's folder when something is there, --log-file) and
// every runner file, probed before any node is touched: a path that cannot be written
// is found now, not after the benchmark (issue 31, 4). The bundle goes beside the HTML
// file, so its probe covers it. Two of them on one file (the same path once absolute,
// normal and with links on the way resolved, or the same existing file), or one inside
// the HTML's <suite>_html/ folder, are refused too: each writer would replace the
// other's file (issue 42, 9). Every problem, in one message, or nothing.
std::optional<std::string> report_path_problem(const ReportRequest& request, const std::string& suite);

// report_path_problem, then the runner files written in gtest's stead: what a run
// holds until it ends (the premature-exit file is removed then), or the problem.
Result<RunnerFilesWritten> claim_report_paths(const ReportRequest& request, const std::string& suite);

// A run that could not start writes what was asked for by path (and everything into
// a workspace's run folder): one failed test_configuration naming every problem.
// Nothing asked for: nothing written. False when a file could not be written.
bool write_problem_reports(const ReportRequest& request, const std::string& suite,
                           const std::vector<std::string>& problems);

}  // namespace aorta::app
