#include "app/report_request.h"

#include <algorithm>
#include <iostream>

#include "common/output_path.h"
#include "fixtures/session.h"

namespace aorta::app {
namespace fs = std::filesystem;

namespace {

fs::path absolute_or_empty(const std::string& path) { return path.empty() ? fs::path() : fs::absolute(path); }

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

fs::path ReportRequest::report_dir(const std::string& run_id, const fs::path& run_folder) const {
  return workspace.empty() ? run_folder : workspace / "cvs_runs" / run_id;
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
  for (const auto& name : report::default_outputs()) {
    if (o.no_html && (name == "html" || name == "bundle")) continue;
    if (o.no_log_file && name == "log") continue;
    r.outputs.push_back(name);
  }
  return r;
}

report::ReportContext report_context(const ReportRequest& request, const std::string& suite, const std::string& run_id,
                                     const fs::path& run_folder) {
  report::ReportContext context;
  context.report_dir = request.report_dir(run_id, run_folder);
  context.html_file = request.html_file;
  context.log_file = request.log_file;
  context.extra_junit_paths = request.junit_paths(suite);
  context.junit = report::junit_options_from_environment(request.junit_shape).value();  // checked before the run starts
  return context;
}

std::optional<std::string> report_path_problem(const ReportRequest& request, const std::string& suite) {
  std::vector<std::pair<std::string, fs::path>> files;
  if (request.wants("html") && !request.html_file.empty()) {
    files.emplace_back("--html", request.html_file);
    // The HTML's <suite>_html/ folder beside it, when something is there already (a link planted there).
    const auto folder = request.html_file.parent_path() / (suite + "_html");
    std::error_code ec;
    if (fs::symlink_status(folder, ec).type() != fs::file_type::not_found)
      files.emplace_back("--html", folder / "report.css");
  }
  if (request.wants("log") && !request.log_file.empty()) files.emplace_back("--log-file", request.log_file);
  for (const auto& path : request.junit_files) files.emplace_back("--junitxml", path);
  if (request.gtest_junit)
    files.emplace_back("--gtest_output", fs::absolute(request.gtest_junit->file_for(suite)));
  std::string problems;  // every path at fault, so one fix-up round is enough
  for (const auto& [flag, path] : files)
    if (Status s = probe_output_file(path); !s)
      problems += (problems.empty() ? "" : "; ") + flag + " " + s.error().describe();
  if (problems.empty()) return std::nullopt;
  return "report paths cannot be written (nothing was run): " + problems;
}

bool write_problem_reports(const ReportRequest& request, const std::string& suite,
                           const std::vector<std::string>& problems) {
  const std::string run_id = fixtures::new_run_id();
  report::ReportContext context = report_context(request, suite, run_id, fs::path());
  std::vector<std::string> outputs;
  if (request.workspace.empty()) {
    // No report folder: only the files asked for by path.
    if (context.extra_junit_paths.empty() && request.html_file.empty() && request.log_file.empty()) return true;
    if (!context.extra_junit_paths.empty()) {
      context.junit_file = context.extra_junit_paths.front();
      context.extra_junit_paths.erase(context.extra_junit_paths.begin());
      outputs.push_back("junit");
    }
    if (!request.log_file.empty()) outputs.push_back("log");
    if (!request.html_file.empty()) outputs.insert(outputs.end(), {"html", "bundle"});
    // Beside the first file asked for: the HTML's folder and zip go there.
    const fs::path& first = !request.html_file.empty() ? request.html_file
                            : !request.log_file.empty() ? request.log_file
                                                        : context.junit_file;
    context.report_dir = first.parent_path();
  } else {
    for (const auto& name : request.outputs)
      if (name != "deck" && name != "summary") outputs.push_back(name);  // no config, no metrics: no deck or summary
  }
  outputs.erase(std::remove_if(outputs.begin(), outputs.end(), [&](const auto& n) { return !request.wants(n); }), outputs.end());
  return report::write_problem_reports(suite, run_id, problems, context, outputs);
}

}  // namespace aorta::app
