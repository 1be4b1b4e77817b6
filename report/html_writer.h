// <suite>.html, pytest-html's shape without its JavaScript: one row per stage in run
// order, outcome, duration, a Full Log link, the skip reason or failures, and the
// sub-tests in a <details> under their stage. Self-contained: inline CSS, no fetches.
#pragma once

#include "report/report_writer.h"

namespace aorta::report {

// <suite>_html/<test>_<12 hex>.html: the page a row's "Full Log" link opens.
std::string stage_log_path(const RunRecord& run, const StageResult& stage);

class HtmlWriter final : public ReportWriter {
 public:
  void write(const RunRecord& run, std::ostream& out) const override;
  std::string file_name(const std::string& suite) const override { return suite + ".html"; }
};

// The Full Log page of one stage.
void write_stage_log_page(const RunRecord& run, const StageResult& stage, std::ostream& out);

}  // namespace aorta::report
