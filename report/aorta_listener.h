// The gtest listener behind every report file: the stage fixture writes each test's
// StageResult into the run's RunRecord; as tests end the listener holds each to
// gtest's verdict (adding a record for a test the fixture never reached), and when
// the program ends drives the outputs named at construction (report/outputs.h), in
// that order, into ReportFiles. It never throws
// and never raises gtest failures; write_failed() lets main change the exit status.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/result.h"
#include "report/outputs.h"
#include "report/run_record.h"

namespace aorta::report {

class AortaListener final : public ::testing::EmptyTestEventListener {
 public:
  // Reports go to context.report_dir, written from `record` (its suite and run id
  // set; it must outlive the listener); outputs are names of report/outputs.h, and
  // an unknown one is refused here, before anything runs.
  static Result<std::unique_ptr<AortaListener>> create(ReportContext context, RunRecord& record,
                                                       const std::vector<std::string>& outputs = default_outputs());

  void OnTestProgramStart(const ::testing::UnitTest& unit_test) override;
  void OnTestEnd(const ::testing::TestInfo& test_info) override;
  void OnTestProgramEnd(const ::testing::UnitTest& unit_test) override;

  const RunRecord& record() const { return record_; }
  bool write_failed() const { return files_.failed(); }
  // Runs every output on the record as it stands (what OnTestProgramEnd does).
  void write_reports();

 private:
  AortaListener(ReportContext context, RunRecord& record, std::vector<std::unique_ptr<Output>> outputs);
  // A SIGINT/SIGTERM/SIGHUP that no stage names (it came after the last one, or while
  // the reports were written) gets a failed record of its own, run_interrupted, so the
  // reports agree with the exit status 1. True when that record was added now.
  bool record_late_interruption();
  bool interruption_recorded_ = false;

  ReportContext context_;
  std::vector<std::unique_ptr<Output>> outputs_;
  RunRecord& record_;
  ReportFiles files_;
};

}  // namespace aorta::report
