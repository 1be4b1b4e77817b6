// <suite>.html, pytest-html's shape without its JavaScript: a verdict banner, the
// headline metrics, the environment, links to the JSON report and node logs, then one
// row per stage in run order (outcome, duration, a Full Log link, the skip reason or
// failures), its sub-tests in a <details> panel under it, each linking its own Full Log
// (the guide's one row per stage; every test still has its page). Styles come from
// <suite>_html/report.css, never inline, so a Content-Security-Policy of style-src
// 'self' (Jenkins' default) keeps them; with styles off every verdict is still words.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "metrics/run_metrics.h"
#include "report/report_writer.h"

namespace aorta::report {

// <suite>_html/<test>_<12 hex>.html: the page a row's "Full Log" link opens.
std::string stage_log_path(const RunRecord& run, const StageResult& stage);

// <suite>_html/report.css, the one stylesheet of the report and its Full Log pages.
std::string report_stylesheet();
std::string stylesheet_path(const RunRecord& run);  // <suite>_html/report.css

// What the report shows beyond the record (all optional).
struct HtmlExtras {
  const metrics::RunMetrics* result = nullptr;                    // the headline metrics
  std::vector<std::pair<std::string, std::string>> environment;   // (what, value) rows
  std::string json_report_link;                                   // relative link to aorta_benchmark_report.json
  std::string report_name;  // the report's file name, for the pages' way back (default <suite>.html)
  std::string deck_link;                    // relative link to the Run Deck (empty: none written)
  std::vector<std::string> node_log_links;  // relative links to the nodes' phase logs copied beside the report
};

class HtmlWriter final : public ReportWriter {
 public:
  explicit HtmlWriter(HtmlExtras extras = {}) : extras_(std::move(extras)) {}
  void write(const RunRecord& run, std::ostream& out) const override;
  std::string file_name(const std::string& suite) const override { return suite + ".html"; }

 private:
  HtmlExtras extras_;
};

// The Full Log page of one stage; report_name is the report's file name (its way back).
void write_stage_log_page(const RunRecord& run, const StageResult& stage, std::ostream& out,
                          const std::string& report_name = "");

}  // namespace aorta::report
