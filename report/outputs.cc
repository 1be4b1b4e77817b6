#include "report/outputs.h"

#include <algorithm>
#include <iostream>
#include <sstream>

#include "common/utf8.h"
#include "report/html_writer.h"
#include "report/metrics_json.h"
#include "report/redact.h"
#include "report/run_deck.h"
#include "report/text_log_writer.h"
#include "report/zip_writer.h"

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
    sink.file(writer.file_name(run.suite), xml, true);
    for (const auto& extra : context.extra_junit_paths) sink.file(extra, xml, true);
  }
};

class LogOutput final : public Output {
 public:
  void write(RunRecord& run, const ReportContext&, OutputSink& sink) const override {
    TextLogWriter writer;
    sink.file(writer.file_name(run.suite), render(writer, run), true);
  }
};

class DeckOutput final : public Output {
 public:
  void write(RunRecord& run, const ReportContext& context, OutputSink& sink) const override {
    const DeckContext& d = context.deck;
    if (!d.variant) return;
    const std::string folder = run.suite + "_html";
    DeckInput in{&run, d.variant, d.nodes, d.gpus_per_node, d.nccl_channels,
                 d.result && *d.result ? &**d.result : nullptr, "../" + run.suite + ".html", "../" + run.suite + ".log",
                 d.cluster_file, d.config_file, d.generated_at};
    auto json = run_deck_json(in);
    std::ostringstream html;
    write_run_deck_html(json, html);
    sink.file(fs::path(folder) / "aorta_run_deck.json", json_text(json));
    if (sink.file(fs::path(folder) / "aorta_run_deck.html", html.str())) run.deck_link = folder + "/aorta_run_deck.html";
  }
};

// <suite>.html, the Full Log page of each test and the redacted input copies.
class HtmlOutput final : public Output {
 public:
  void write(RunRecord& run, const ReportContext& context, OutputSink& sink) const override {
    HtmlWriter writer;
    sink.file(writer.file_name(run.suite), render(writer, run), true);
    for (const auto& stage : run.stages) {
      std::ostringstream page;
      write_stage_log_page(run, stage, page);
      sink.file(stage_log_path(run, stage), page.str());
    }
    for (const auto& [prefix, file] : context.input_files) {
      // Redacted: a cluster file's password or an env token must not travel with the report.
      auto text = redacted_json(file);
      if (!text) continue;  // not JSON: it cannot be redacted, so it is not copied
      sink.file(fs::path(run.suite + "_html") / (prefix + "_" + valid_utf8(file.filename().string())), *text);
    }
  }
};

// <suite>_<timestamp>.zip: the report at the root and every file under <suite>_html/.
class BundleOutput final : public Output {
 public:
  void write(RunRecord& run, const ReportContext&, OutputSink& sink) const override {
    const fs::path dir = sink.report_dir();
    const std::string folder = run.suite + "_html";
    std::vector<std::pair<std::string, fs::path>> entries = {{run.suite + ".html", dir / (run.suite + ".html")}};
    // Every file under it, in sub-folders too (regular files only: write_zip refuses links).
    std::vector<fs::path> files;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir / folder, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
      if (it->is_regular_file()) files.push_back(fs::relative(it->path(), dir / folder));
    std::sort(files.begin(), files.end());
    for (const auto& f : files) entries.emplace_back(folder + "/" + f.generic_string(), dir / folder / f);
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

const std::vector<std::string>& default_outputs() {
  static const std::vector<std::string> names = {"junit", "log", "deck", "html", "bundle"};
  return names;
}

Result<std::vector<std::unique_ptr<Output>>> create_outputs(const std::vector<std::string>& names) {
  std::vector<std::unique_ptr<Output>> outputs;
  for (const auto& name : names) {
    if (name == "junit") outputs.push_back(std::make_unique<JunitOutput>());
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
