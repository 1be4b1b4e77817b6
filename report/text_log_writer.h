// <suite>.log: the run as plain text, stage by stage, for people and grep, closed
// by the run summary the console shows (report/run_summary.h).
#pragma once

#include "metrics/run_metrics.h"
#include "report/report_writer.h"

namespace aorta::report {

class TextLogWriter final : public ReportWriter {
 public:
  // result: the run's parsed metrics for the closing summary (null: none parsed).
  explicit TextLogWriter(const metrics::RunMetrics* result = nullptr) : result_(result) {}
  void write(const RunRecord& run, std::ostream& out) const override;
  std::string file_name(const std::string& suite) const override { return suite + ".log"; }

 private:
  const metrics::RunMetrics* result_;
};

}  // namespace aorta::report
