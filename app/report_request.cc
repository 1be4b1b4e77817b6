#include "app/report_request.h"

#include <algorithm>
#include <iostream>

#include "common/output_path.h"
#include "fixtures/session.h"

namespace aorta::app {
namespace fs = std::filesystem;

namespace {

fs::path absolute_or_empty(const std::string& path) { return path.empty() ? fs::path() : fs::absolute(path); }

// A path as the file system will take it: absolute, normal, links on the way resolved.
fs::path resolved(const fs::path& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(path, ec);
  return ec ? path.lexically_normal() : p;
}

bool same_existing_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

// Pairs of outputs on one file, and outputs inside the HTML's folder.
std::vector<std::string> same_file_problems(const std::vector<std::pair<std::string, fs::path>>& files,
                                            const fs::path& html_folder) {
  std::vector<std::string> problems;
  for (size_t i = 0; i < files.size(); ++i) {
    const auto& [flag, path] = files[i];
    for (size_t j = i + 1; j < files.size(); ++j)
      if (resolved(path) == resolved(files[j].second) || same_existing_file(path, files[j].second))
        problems.push_back(flag + " " + path.string() + " and " + files[j].first + " " + files[j].second.string() +
                           " are one file: each would replace the other's; give each its own path");
    const fs::path inside = resolved(path).lexically_relative(resolved(html_folder));
    if (!html_folder.empty() && flag != "--html" && !inside.empty() && *inside.begin() != "..")
      problems.push_back(flag + " " + path.string() + " is inside the HTML report's folder " + html_folder.string() +
                         ", which --html fills; give it a path outside");
  }
  return problems;
}

// The folder created and probed as every report path is (probe_output_file): why it
// cannot take files, or nothing.
std::optional<std::string> check_output_root(const std::filesystem::path& root) {
  if (auto folder = open_output_folder(root, true); !folder)
    return root.string() + ": cannot use the run's output folder: " + folder.error().describe();
  if (Status s = probe_output_file(root / ".aorta_suite_probe"); !s) {
    std::error_code ec;
    std::filesystem::remove(root, ec);  // only when empty
    return s.error().describe();
  }
  return std::nullopt;
}

}  // namespace

bool ReportRequest::wants(const std::string& output) const {
  return std::find(outputs.begin(), outputs.end(), output) != outputs.end();
}

std::vector<fs::path> ReportRequest::junit_paths(const std::string& suite) const {
  std::vector<fs::path> paths;
  // Relative to where the user ran the command (gtest's rule), not to the run folder.
  if (gtest_junit) paths.push_back(fs::absolute(gtest_junit->file_for(suite)));
  paths.insert(paths.end(), junit_files.begin(), junit_files.end());
  return paths;
}

fs::path ReportRequest::report_dir(const std::string& name, const fs::path& run_folder) const {
  return workspace.empty() ? run_folder : workspace / "cvs_runs" / name;
}

ReportRequest report_request(const cli::Options& o, const GtestFlags& flags, const char* (*getenv)(const char*)) {
  ReportRequest r;
  std::string workspace = o.workspace;
  if (workspace.empty())
    if (const char* env = getenv("CVS_WORKSPACE"); env && *env) workspace = env;
  r.workspace = absolute_or_empty(workspace);
  r.html_file = absolute_or_empty(o.html_file);
  r.log_file = absolute_or_empty(o.log_file);
  if (!o.junitxml.empty()) r.junit_files.push_back(fs::absolute(o.junitxml));
  r.gtest_junit = flags.junit;
  r.junit_shape = o.junit_shape;
  r.runner_files = runner_files(getenv);
  hide_runner_files_from_gtest();  // from here on the run's to write: gtest and the workload never see them
  for (const auto& name : report::default_outputs()) {
    if (o.no_html && (name == "html" || name == "bundle")) continue;
    if (o.no_log_file && name == "log") continue;
    r.outputs.push_back(name);
  }
  return r;
}

report::ReportSetup report_setup(const ReportRequest& request, const std::string& suite, const std::string& name,
                                 const fs::path& run_folder) {
  report::ReportSetup setup;
  setup.report_dir = request.report_dir(name, run_folder);
  setup.html_file = request.html_file;
  setup.log_file = request.log_file;
  setup.extra_junit_paths = request.junit_paths(suite);
  setup.junit = report::junit_options_from_environment(request.junit_shape).value();  // checked before the run starts
  return setup;
}

std::optional<std::string> report_path_problem(const ReportRequest& request, const std::string& suite) {
  std::vector<std::pair<std::string, fs::path>> files;
  fs::path html_folder;  // the HTML's <suite>_html/, which the HTML output fills
  if (request.wants("html") && !request.html_file.empty()) {
    files.emplace_back("--html", request.html_file);
    html_folder = request.html_file.parent_path() / (suite + "_html");
  }
  if (request.wants("log") && !request.log_file.empty()) files.emplace_back("--log-file", request.log_file);
  for (const auto& path : request.junit_files) files.emplace_back("--junitxml", path);
  if (request.gtest_junit)
    files.emplace_back(request.gtest_junit->source, fs::absolute(request.gtest_junit->file_for(suite)));
  for (const auto& f : request.runner_files) files.emplace_back(f.variable, f.path);
  std::vector<std::string> problems = same_file_problems(files, html_folder);  // every one, so one fix-up round is enough
  // The HTML's folder too, when something is there already (a link planted there).
  std::error_code ec;
  if (!html_folder.empty() && fs::symlink_status(html_folder, ec).type() != fs::file_type::not_found)
    files.emplace_back("--html", html_folder / "report.css");
  for (const auto& [flag, path] : files)
    if (Status s = probe_output_file(path); !s) problems.push_back(flag + " " + s.error().describe());
  if (problems.empty()) return std::nullopt;
  std::string text;
  for (const auto& p : problems) text += (text.empty() ? "" : "; ") + p;
  return "report paths cannot be written (nothing was run): " + text;
}

Result<RunnerFilesWritten> claim_report_paths(const ReportRequest& request, const std::string& suite) {
  if (auto problem = report_path_problem(request, suite)) return Error{ErrorCode::kInvalidInput, *problem, ""};
  return RunnerFilesWritten::write(request.runner_files);
}

bool write_problem_reports(const ReportRequest& request, const std::string& suite,
                           const std::vector<std::string>& problems) {
  const std::string run_id = fixtures::new_run_id();
  report::ReportSetup setup = report_setup(request, suite, run_id, fs::path());
  std::vector<std::string> outputs;
  if (request.workspace.empty()) {
    // No report folder: only the files asked for by path.
    if (setup.extra_junit_paths.empty() && request.html_file.empty() && request.log_file.empty()) return true;
    if (!setup.extra_junit_paths.empty()) {
      setup.junit_file = setup.extra_junit_paths.front();
      setup.extra_junit_paths.erase(setup.extra_junit_paths.begin());
      outputs.push_back("junit");
    }
    if (!request.log_file.empty()) outputs.push_back("log");
    if (!request.html_file.empty()) outputs.insert(outputs.end(), {"html", "bundle"});
    // Beside the first file asked for: the HTML's folder and zip go there.
    const fs::path& first = !request.html_file.empty() ? request.html_file
                            : !request.log_file.empty() ? request.log_file
                                                        : setup.junit_file;
    setup.report_dir = first.parent_path();
  } else {
    for (const auto& name : request.outputs)
      if (name != "deck" && name != "summary") outputs.push_back(name);  // no config, no metrics: no deck or summary
  }
  outputs.erase(std::remove_if(outputs.begin(), outputs.end(), [&](const auto& n) { return !request.wants(n); }), outputs.end());
  return report::write_problem_reports(suite, run_id, problems, setup, outputs);
}

std::optional<std::pair<std::string, std::string>> output_folder_problem(const fs::path& output_root,
                                                                         const fs::path& report_dir) {
  if (auto problem = check_output_root(output_root)) return std::pair{std::string("output_dir"), *problem};
  if (report_dir == output_root) return std::nullopt;
  if (auto problem = check_output_root(report_dir)) return std::pair{std::string("the workspace"), *problem};
  return std::nullopt;
}

}  // namespace aorta::app
