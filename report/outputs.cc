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
#include "redact/redact.h"
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

void write_junit(const RunRecord& run, const ReportContext& context, ReportFiles& files) {
  const std::string xml = render(JunitWriter(context.setup.junit), run);
  files.file(context.junit_file, xml, true);
  for (const auto& extra : context.setup.extra_junit_paths) files.file(extra, xml, true);
}

// GitLab's metrics report and the Jenkins Plot plugin's CSV, in the report folder.
void write_ci_metrics(const RunRecord& run, const ReportContext& context, ReportFiles& files) {
  files.file(kOpenMetricsFile, openmetrics_text(run, context.result()), true);
  files.file(kPlotCsvFile, plot_csv(run, context.result()), true);
}

void write_log(const RunRecord& run, const ReportContext& context, ReportFiles& files) {
  files.file(context.log_file, render(TextLogWriter(context.result()), run), true);
}

// The run summary on standard output, after gtest's own summary.
void write_summary(const RunRecord& run, const ReportContext& context, ReportFiles&) {
  std::cout << "\n" << run_summary(run, context.result()) << std::flush;
}

void write_deck(const RunRecord& run, const ReportContext& context, ReportFiles& files) {
  const DeckSetup& d = context.setup.deck;
  if (!d.variant) return;
  DeckInput in{&run, &*d.variant, d.nodes, d.gpus_per_node, d.nccl_channels, context.result(), context.deck_to_html,
               context.deck_to_log, d.cluster_file, d.config_file};
  in.baseline = d.baseline ? &*d.baseline : nullptr;
  in.lifecycle = d.lifecycle;
  in.history_root = d.history_root;
  in.own_report = context.products.json_report;
  auto json = run_deck_json(in);
  std::ostringstream html;
  write_run_deck_html(json, html);
  files.file(context.deck_dir / "aorta_run_deck.json", result_json::json_text(json));
  files.file(context.deck_dir / "aorta_run_deck.css", run_deck_stylesheet());
  files.file(context.deck_dir / "aorta_run_deck.html", html.str(), true);
}

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
  return head + redact::redact_text(valid_utf8(text));
}

// The nodes' phase logs into <suite>_html/node_logs/: the links of those copied.
std::vector<std::string> copy_node_logs(const ReportContext& context, ReportFiles& files) {
  std::vector<std::string> links;
  for (const auto& log : context.node_logs)
    if (auto text = node_log_text(log.source); text && files.file(context.html_file.parent_path() / log.link, *text))
      links.push_back(log.link);
  return links;
}

HtmlExtras html_extras(const RunRecord& run, const ReportContext& context) {
  HtmlExtras extras;
  extras.result = context.result();
  extras.report_name = context.html_file.filename().string();
  const DeckSetup& d = context.setup.deck;
  extras.environment = {{"aorta_suite", run.version + " (" + run.commit + ")"}, {"head node", run.hostname}};
  if (!d.config_file.empty()) extras.environment.emplace_back("config", valid_utf8(d.config_file));
  extras.environment.emplace_back("cluster", d.cluster_file.empty() ? "this machine (no SSH)" : valid_utf8(d.cluster_file));
  if (d.nodes)
    extras.environment.emplace_back("nodes", fmt::format("{} node(s), {} rank(s) per node", d.nodes, d.gpus_per_node));
  extras.json_report_link = context.json_report_link;
  extras.deck_link = context.deck_link;
  return extras;
}

// <suite>.html with its stylesheet, the Full Log page of each test, the redacted input
// copies and node logs.
void write_html(const RunRecord& run, const ReportContext& context, ReportFiles& files) {
  const fs::path& report = context.html_file;
  const fs::path dir = report.parent_path();
  HtmlExtras extras = html_extras(run, context);
  extras.node_log_links = copy_node_logs(context, files);
  files.file(dir / stylesheet_path(run), report_stylesheet());
  files.file(report, render(HtmlWriter(extras), run), true);
  for (const StageResult* test : run.tests()) {
    std::ostringstream page;
    write_stage_log_page(run, *test, page, report.filename().string());
    files.file(dir / stage_log_path(run, *test), page.str());
  }
  for (const auto& [prefix, file] : context.setup.input_files) {
    // Redacted: a cluster file's password or an env token must not travel with the report.
    auto text = redacted_json(file);
    if (!text) continue;  // not JSON: it cannot be redacted, so it is not copied
    const std::string name = portable_name_part(prefix + "_" + valid_utf8(file.filename().string()));
    files.file(dir / (run.suite + "_html") / name, *text);
  }
}

// <suite>_<timestamp>.zip beside the HTML report: the report at the root and every
// file under <suite>_html/.
void write_bundle(const RunRecord& run, const ReportContext& context, ReportFiles& files) {
  const fs::path& report = context.html_file;
  const fs::path dir = report.parent_path();
  const std::string folder = run.suite + "_html";
  // Only what this run wrote: a reused folder may hold an earlier run's files, or
  // files someone else put there.
  const fs::path own = (dir / folder).lexically_normal();
  std::vector<std::pair<std::string, fs::path>> entries;
  std::vector<fs::path> inside;
  // Beside the report, what its pages link: the text log (the deck's link), the JUnit
  // file, the CI metrics and the JSON report, so no link inside the zip leads nowhere
  // (issue 31, 9). Only files of this run; never the traces.
  std::vector<fs::path> beside;
  for (const auto& path : files.written()) {
    if (path == report.lexically_normal()) entries.emplace_back(report.filename().string(), path);
    else if (path.parent_path() == dir.lexically_normal()) beside.push_back(path);
    auto [end, at] = std::mismatch(own.begin(), own.end(), path.begin(), path.end());
    if (end == own.end() && at != path.end()) inside.push_back(path.lexically_relative(own));
  }
  if (entries.empty()) {
    files.fail("no bundle: the HTML report " + report.string() + " was not written");
    return;
  }
  const auto& json_report = context.products.json_report;
  if (json_report && json_report->lexically_normal().parent_path() == dir.lexically_normal())
    beside.push_back(json_report->lexically_normal());
  std::sort(beside.begin(), beside.end());
  beside.erase(std::unique(beside.begin(), beside.end()), beside.end());
  for (const auto& f : beside) entries.emplace_back(f.filename().string(), f);
  std::sort(inside.begin(), inside.end());
  inside.erase(std::unique(inside.begin(), inside.end()), inside.end());
  for (const auto& f : inside) entries.emplace_back(folder + "/" + f.generic_string(), own / f);
  std::string stamp = run.timestamp;
  stamp.erase(std::remove(stamp.begin(), stamp.end(), ':'), stamp.end());
  fs::path zip = dir / (run.suite + "_" + stamp + ".zip");
  if (Status s = write_zip(zip, entries); !s) {
    files.fail(s.error().describe());
    return;
  }
  std::cout << "aorta_suite: wrote " << zip.string() << "\n";
}

// Every output, in the order a run writes them.
constexpr Output kOutputs[] = {{"summary", write_summary}, {"junit", write_junit}, {"ci_metrics", write_ci_metrics},
                               {"log", write_log},         {"deck", write_deck},   {"html", write_html},
                               {"bundle", write_bundle}};

}  // namespace

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
  if (announce && announce_) std::cout << "aorta_suite: wrote " << path.string() << "\n";
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

bool write_outputs(const RunRecord& run, const ReportContext& context, const std::vector<Output>& outputs,
                   ReportFiles& files) {
  if (auto folder = open_output_folder(context.setup.report_dir, true); !folder) files.fail(folder.error().describe());
  bool ok = true;
  for (const auto& output : outputs) {
    // One output's failure (a bug, memory) must not cost the others their files.
    try {
      output.write(run, context, files);
    } catch (const std::exception& e) {
      files.fail(std::string("could not write a report: ") + e.what());
      ok = false;
    }
  }
  return ok;
}

bool write_problem_reports(const std::string& suite, const std::string& run_id, const std::vector<std::string>& problems,
                           const ReportSetup& setup, const std::vector<std::string>& outputs) {
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
  ReportFiles files(setup.report_dir);
  return write_outputs(run, report_context(run, setup, {}, outputs), *made, files) && !files.failed();
}

const std::vector<std::string>& default_outputs() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const auto& output : kOutputs) all.push_back(output.name);
    return all;
  }();
  return names;
}

Result<std::vector<Output>> create_outputs(const std::vector<std::string>& names) {
  std::vector<Output> outputs;
  for (const auto& name : names) {
    const auto known = std::find_if(std::begin(kOutputs), std::end(kOutputs), [&](const Output& o) { return name == o.name; });
    if (known == std::end(kOutputs)) {
      std::string listed;
      for (const auto& k : default_outputs()) listed += (listed.empty() ? "" : ", ") + k;
      return Error{ErrorCode::kInvalidInput, "unknown report output \"" + valid_utf8(name) + "\"; known: " + listed, ""};
    }
    outputs.push_back(*known);
  }
  return outputs;
}

}  // namespace aorta::report
