#include "report/outputs.h"

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/utf8.h"
#include "report/ci_metrics.h"
#include "report/html_writer.h"
#include "result_json/metrics_json.h"
#include "report/redact.h"
#include "report/run_deck.h"
#include "report/run_summary.h"
#include "report/text_log_writer.h"
#include "stages/stage_guard.h"
#include "report/zip_writer.h"
#include "common/output_path.h"

namespace aorta::report {
namespace fs = std::filesystem;
namespace {

std::string render(const ReportWriter& writer, const RunRecord& run) {
  std::ostringstream out;
  writer.write(run, out);
  return out.str();
}

class JunitOutput final : public Output {
 public:
  void write(RunRecord& run, const ReportContext& context, OutputSink& sink) const override {
    JunitWriter writer(context.junit);
    const std::string xml = render(writer, run);
    sink.file(context.junit_file.empty() ? context.report_dir / writer.file_name(run.suite) : context.junit_file, xml,
              true);
    for (const auto& extra : context.extra_junit_paths) sink.file(extra, xml, true);
  }
};

const metrics::RunMetrics* parsed_result(const ReportContext& context) {
  return context.result && *context.result ? &**context.result : nullptr;
}

// GitLab's metrics report and the Jenkins Plot plugin's CSV, in the report folder.
class CiMetricsOutput final : public Output {
 public:
  void write(RunRecord& run, const ReportContext& context, OutputSink& sink) const override {
    sink.file(kOpenMetricsFile, openmetrics_text(run, parsed_result(context)));
    sink.file(kPlotCsvFile, plot_csv(run, parsed_result(context)));
  }
};

class LogOutput final : public Output {
 public:
  void write(RunRecord& run, const ReportContext& context, OutputSink& sink) const override {
    sink.file(log_file(run, context), render(TextLogWriter(parsed_result(context)), run), true);
  }
};

// The run summary on standard output, after gtest's own summary.
class SummaryOutput final : public Output {
 public:
  void write(RunRecord& run, const ReportContext& context, OutputSink&) const override {
    std::cout << "\n" << run_summary(run, parsed_result(context)) << std::flush;
  }
};

// A link from a file in folder `from` to `to`, both made absolute first.
std::string link(const fs::path& from, const fs::path& to) {
  return fs::absolute(to).lexically_normal().lexically_relative(fs::absolute(from).lexically_normal()).generic_string();
}

class DeckOutput final : public Output {
 public:
  void write(RunRecord& run, const ReportContext& context, OutputSink& sink) const override {
    if (!context.deck.variant) return;
    const std::string folder = run.suite + "_html";
    const fs::path report = html_file(run, context), deck_dir = report.parent_path() / folder;
    DeckInput in = context.deck;
    in.run = &run;
    in.result = parsed_result(context);
    in.pytest_html = link(deck_dir, report);
    in.log_file = link(deck_dir, log_file(run, context));
    auto json = run_deck_json(in);
    std::ostringstream html;
    write_run_deck_html(json, html);
    sink.file(deck_dir / "aorta_run_deck.json", result_json::json_text(json));
    sink.file(deck_dir / "aorta_run_deck.css", run_deck_stylesheet());
    if (sink.file(deck_dir / "aorta_run_deck.html", html.str())) run.deck_link = folder + "/aorta_run_deck.html";
  }
};

// A node log kept in the report: its last kNodeLogBytes, redacted (a log can be
// gigabytes; the end is what a person reads). The full log stays in the run's folder.
constexpr size_t kNodeLogBytes = 1 << 20;

std::optional<std::string> node_log_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return std::nullopt;
  const auto size = static_cast<size_t>(in.tellg());
  const size_t keep = std::min(size, kNodeLogBytes);
  std::string text(keep, '\0');
  in.seekg(static_cast<std::streamoff>(size - keep));
  if (!in.read(text.data(), static_cast<std::streamsize>(keep))) return std::nullopt;
  std::string head;
  if (keep < size) {
    text.erase(0, std::min(text.size(), text.find('\n') + 1));  // from a whole line
    head = "[first " + std::to_string(size - text.size()) + " bytes left out; the whole log is " + file.string() + "]\n";
  }
  return head + redact_text(valid_utf8(text));
}

// The nodes' phase logs into <suite>_html/node_logs/, linked from the report.
void copy_node_logs(RunRecord& run, const ReportContext& context, const fs::path& dir, OutputSink& sink) {
  if (!context.artifacts) return;
  for (const auto& [key, file] : *context.artifacts) {
    if (key.find("_log_node_") == std::string::npos) continue;
    auto text = node_log_text(file);
    if (!text) continue;
    // Named as in the bundle (portable_name_part): the link inside the zip leads somewhere.
    const std::string link = run.suite + "_html/node_logs/" + portable_name_part(valid_utf8(file.filename().string()));
    if (sink.file(dir / link, *text)) run.node_log_links.push_back(link);
  }
}

HtmlExtras html_extras(const RunRecord& run, const ReportContext& context, const fs::path& report) {
  HtmlExtras extras;
  extras.result = parsed_result(context);
  extras.report_name = report.filename().string();
  const DeckInput& d = context.deck;
  extras.environment = {{"aorta_suite", run.version + " (" + run.commit + ")"}, {"head node", run.hostname}};
  if (!d.config_file.empty()) extras.environment.emplace_back("config", valid_utf8(d.config_file));
  extras.environment.emplace_back("cluster", d.cluster_file.empty() ? "this machine (no SSH)" : valid_utf8(d.cluster_file));
  if (d.nodes)
    extras.environment.emplace_back("nodes", fmt::format("{} node(s), {} rank(s) per node", d.nodes, d.gpus_per_node));
  if (context.json_report && *context.json_report)
    extras.json_report_link = link(report.parent_path(), **context.json_report);
  return extras;
}

// <suite>.html with its stylesheet, the Full Log page of each test, the redacted input
// copies and node logs.
class HtmlOutput final : public Output {
 public:
  void write(RunRecord& run, const ReportContext& context, OutputSink& sink) const override {
    const fs::path report = html_file(run, context), dir = report.parent_path();
    copy_node_logs(run, context, dir, sink);
    sink.file(dir / stylesheet_path(run), report_stylesheet());
    sink.file(report, render(HtmlWriter(html_extras(run, context, report)), run), true);
    for (const StageResult* test : run.tests()) {
      std::ostringstream page;
      write_stage_log_page(run, *test, page, report.filename().string());
      sink.file(dir / stage_log_path(run, *test), page.str());
    }
    for (const auto& [prefix, file] : context.input_files) {
      // Redacted: a cluster file's password or an env token must not travel with the report.
      auto text = redacted_json(file);
      if (!text) continue;  // not JSON: it cannot be redacted, so it is not copied
      const std::string name = portable_name_part(prefix + "_" + valid_utf8(file.filename().string()));
      sink.file(dir / (run.suite + "_html") / name, *text);
    }
  }
};

// <suite>_<timestamp>.zip beside the HTML report: the report at the root and every
// file under <suite>_html/.
class BundleOutput final : public Output {
 public:
  void write(RunRecord& run, const ReportContext& context, OutputSink& sink) const override {
    const fs::path report = html_file(run, context), dir = report.parent_path();
    const std::string folder = run.suite + "_html";
    // Only what this run wrote: a reused folder may hold an earlier run's files, or
    // files someone else put there.
    const fs::path own = (dir / folder).lexically_normal();
    std::vector<std::pair<std::string, fs::path>> entries;
    std::vector<fs::path> files;
    // Beside the report, what its pages link: the text log (the deck's link), the JUnit
    // file, the CI metrics and the JSON report, so no link inside the zip leads nowhere
    // (issue 31, 9). Only files of this run; never the traces.
    std::vector<fs::path> beside;
    for (const auto& path : sink.written()) {
      if (path == report.lexically_normal()) entries.emplace_back(report.filename().string(), path);
      else if (path.parent_path() == dir.lexically_normal()) beside.push_back(path);
      auto [end, at] = std::mismatch(own.begin(), own.end(), path.begin(), path.end());
      if (end == own.end() && at != path.end()) files.push_back(path.lexically_relative(own));
    }
    if (entries.empty()) {
      sink.fail("no bundle: the HTML report " + report.string() + " was not written");
      return;
    }
    if (context.json_report && *context.json_report &&
        (*context.json_report)->lexically_normal().parent_path() == dir.lexically_normal())
      beside.push_back((*context.json_report)->lexically_normal());
    std::sort(beside.begin(), beside.end());
    beside.erase(std::unique(beside.begin(), beside.end()), beside.end());
    for (const auto& f : beside) entries.emplace_back(f.filename().string(), f);
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    for (const auto& f : files) entries.emplace_back(folder + "/" + f.generic_string(), own / f);
    std::string stamp = run.timestamp;
    stamp.erase(std::remove(stamp.begin(), stamp.end(), ':'), stamp.end());
    fs::path zip = dir / (run.suite + "_" + stamp + ".zip");
    if (Status s = write_zip(zip, entries); !s) {
      sink.fail(s.error().describe());
      return;
    }
    std::cout << "aorta_suite: wrote " << zip.string() << "\n";
  }
};

}  // namespace

fs::path html_file(const RunRecord& run, const ReportContext& context) {
  return context.html_file.empty() ? context.report_dir / HtmlWriter().file_name(run.suite) : context.html_file;
}

fs::path log_file(const RunRecord& run, const ReportContext& context) {
  return text_log_path(context.report_dir, run.suite, context.log_file);
}

fs::path text_log_path(const fs::path& report_dir, const std::string& suite, const fs::path& chosen) {
  return chosen.empty() ? report_dir / TextLogWriter().file_name(suite) : chosen;
}

bool ReportFiles::file(const fs::path& relative, const std::string& content, bool announce) {
  const fs::path path = report_dir_ / relative;  // an absolute path stays itself
  // Folders are made as the walk allows: never through another user's link.
  if (path.has_parent_path())
    if (auto folder = open_output_folder(path.parent_path(), true); !folder) {
      fail(folder.error().describe());
      return false;
    }
  if (Status s = write_file_atomically(path, content); !s) {
    fail(s.error().describe());  // "<path>: could not write: No space left on device"
    return false;
  }
  written_.push_back(path.lexically_normal());
  if (announce) std::cout << "aorta_suite: wrote " << path.string() << "\n";
  return true;
}

void ReportFiles::fail(const std::string& what) {
  std::cerr << "aorta_suite: " << what << "\n";
  failed_ = true;
}

void stamp_record(RunRecord& run) {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", std::localtime(&now));
  run.timestamp = text;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  run.hostname = host;
}

bool write_outputs(RunRecord& run, const ReportContext& context, const std::vector<std::unique_ptr<Output>>& outputs,
                   OutputSink& sink) {
  if (auto folder = open_output_folder(context.report_dir, true); !folder) sink.fail(folder.error().describe());
  bool ok = true;
  for (const auto& output : outputs) {
    // One output's failure (a bug, memory) must not cost the others their files.
    try {
      output->write(run, context, sink);
    } catch (const std::exception& e) {
      sink.fail(std::string("could not write a report: ") + e.what());
      ok = false;
    }
  }
  return ok;
}

bool write_problem_reports(const std::string& suite, const std::string& run_id, const std::vector<std::string>& problems,
                           const ReportContext& context, const std::vector<std::string>& outputs) {
  auto made = create_outputs(outputs);
  if (!made) return false;
  RunRecord run;
  run.suite = suite;
  run.run_id = run_id;
  stamp_record(run);
  StageResult stage;
  stage.name = stage.stage = "test_configuration";
  stage.outcome = job::Outcome::kFailed;
  stage.failures = problems;
  stages::clean_texts(stage);  // config problems name values: shown as a stage's texts are
  run.stages.push_back(std::move(stage));
  ReportFiles files(context.report_dir);
  return write_outputs(run, context, *made, files) && !files.failed();
}

const std::vector<std::string>& default_outputs() {
  static const std::vector<std::string> names = {"summary", "junit", "ci_metrics", "log", "deck", "html", "bundle"};
  return names;
}

Result<std::vector<std::unique_ptr<Output>>> create_outputs(const std::vector<std::string>& names) {
  std::vector<std::unique_ptr<Output>> outputs;
  for (const auto& name : names) {
    if (name == "summary") outputs.push_back(std::make_unique<SummaryOutput>());
    else if (name == "junit") outputs.push_back(std::make_unique<JunitOutput>());
    else if (name == "ci_metrics") outputs.push_back(std::make_unique<CiMetricsOutput>());
    else if (name == "log") outputs.push_back(std::make_unique<LogOutput>());
    else if (name == "deck") outputs.push_back(std::make_unique<DeckOutput>());
    else if (name == "html") outputs.push_back(std::make_unique<HtmlOutput>());
    else if (name == "bundle") outputs.push_back(std::make_unique<BundleOutput>());
    else {
      std::string known;
      for (const auto& k : default_outputs()) known += (known.empty() ? "" : ", ") + k;
      return Error{ErrorCode::kInvalidInput, "unknown report output \"" + valid_utf8(name) + "\"; known: " + known, ""};
    }
  }
  return outputs;
}

}  // namespace aorta::report
