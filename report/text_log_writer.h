// <suite>.log: the run as plain text, stage by stage, for people and grep.
#pragma once

#include "report/report_writer.h"

namespace aorta::report {

class TextLogWriter final : public ReportWriter {
 public:
  void write(const RunRecord& run, std::ostream& out) const override;
  std::string file_name(const std::string& suite) const override { return suite + ".log"; }
};

}  // namespace aorta::report
