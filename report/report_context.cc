#include "report/report_context.h"

#include <algorithm>

#include "common/utf8.h"
#include "report/html_writer.h"
#include "report/text_log_writer.h"
#include "report/zip_writer.h"

namespace aorta::report {
namespace fs = std::filesystem;
namespace {

// A link from a file in folder `from` to `to`, both made absolute first.
std::string link(const fs::path& from, const fs::path& to) {
  return fs::absolute(to).lexically_normal().lexically_relative(fs::absolute(from).lexically_normal()).generic_string();
}

// The nodes' phase logs among the run's files, each into <suite>_html/node_logs/,
// named as in the bundle (portable_name_part): the link inside the zip leads somewhere.
std::vector<NodeLogCopy> node_logs(const std::string& suite, const std::map<std::string, fs::path>& artifacts) {
  std::vector<NodeLogCopy> logs;
  for (const auto& [key, file] : artifacts)
    if (key.find("_log_node_") != std::string::npos)
      logs.push_back({file, suite + "_html/node_logs/" + portable_name_part(valid_utf8(file.filename().string()))});
  return logs;
}

}  // namespace

fs::path text_log_path(const fs::path& report_dir, const std::string& suite, const fs::path& chosen) {
  return chosen.empty() ? report_dir / TextLogWriter().file_name(suite) : chosen;
}

ReportContext report_context(const RunRecord& run, ReportSetup setup, RunProducts products,
                             const std::vector<std::string>& outputs) {
  ReportContext c;
  const std::string folder = run.suite + "_html";
  c.html_file = setup.html_file.empty() ? setup.report_dir / HtmlWriter().file_name(run.suite) : setup.html_file;
  c.log_file = text_log_path(setup.report_dir, run.suite, setup.log_file);
  c.junit_file = setup.junit_file.empty() ? setup.report_dir / JunitWriter(setup.junit).file_name(run.suite)
                                          : setup.junit_file;
  c.deck_dir = c.html_file.parent_path() / folder;
  const bool deck = setup.deck.variant && std::find(outputs.begin(), outputs.end(), "deck") != outputs.end();
  if (deck) c.deck_link = folder + "/aorta_run_deck.html";
  c.deck_to_html = link(c.deck_dir, c.html_file);
  c.deck_to_log = link(c.deck_dir, c.log_file);
  if (products.json_report) c.json_report_link = link(c.html_file.parent_path(), *products.json_report);
  c.node_logs = node_logs(run.suite, products.artifacts);
  c.setup = std::move(setup);
  c.products = std::move(products);
  return c;
}

}  // namespace aorta::report
