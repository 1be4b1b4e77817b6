// JUnit XML for Jenkins and GitLab: one <testcase> per stage; each sub-test is a
// cvs_aorta_subtest <property> of its stage, counts one in the suite's tests total,
// and when failed adds its own <failure> next to the stage's.
#pragma once

#include "report/report_writer.h"

namespace aorta::report {

class JunitWriter final : public ReportWriter {
 public:
  void write(const RunRecord& run, std::ostream& out) const override;
  std::string file_name(const std::string& suite) const override { return suite + ".xml"; }
};

}  // namespace aorta::report
