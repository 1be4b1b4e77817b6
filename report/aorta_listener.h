// The gtest listener behind every report file: the stage fixture writes each test's
// StageResult into the run's RunRecord; as tests end the listener holds each to
// gtest's verdict (adding a record for a test the fixture never reached), and when
// the program ends computes the report context once (report/report_context.h) and
// drives the outputs named at construction (report/outputs.h), in that order, over
// the finished record into ReportFiles. After each stage it rewrites the JUnit file
// and the HTML report (those of them named) with what has finished so far and a failed
// run_incomplete testcase, so a run killed outright (ctest's TIMEOUT, the OOM killer,
// a cancelled job) still leaves reports of what finished that no dashboard reads as
// green. It never throws and never raises gtest failures; write_failed() lets main
// change the exit status.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/result.h"
#include "report/interrupt_watch.h"
#include "report/outputs.h"
#include "report/report_context.h"
#include "report/run_record.h"

namespace aorta::report {

class AortaListener final : public ::testing::EmptyTestEventListener {
 public:
  // Reports go to setup.report_dir, written from `record` (its suite and run id set; it
  // must outlive the listener) and what `products` returns when they are written (unset:
  // nothing); outputs are names of report/outputs.h, and an unknown one is refused here,
  // before anything runs.
  static Result<std::unique_ptr<AortaListener>> create(ReportSetup setup, RunRecord& record,
                                                       const std::vector<std::string>& outputs = default_outputs(),
                                                       std::function<RunProducts()> products = {});

  void OnTestProgramStart(const ::testing::UnitTest& unit_test) override;
  void OnTestStart(const ::testing::TestInfo& test_info) override;
  void OnTestEnd(const ::testing::TestInfo& test_info) override;
  void OnTestProgramEnd(const ::testing::UnitTest& unit_test) override;

  const RunRecord& record() const { return record_; }
  bool write_failed() const { return files_.failed(); }
  // Runs every output on the record as it stands (what OnTestProgramEnd does).
  void write_reports();
  // The progress reports after stage `finished` (what OnTestEnd does after a stage):
  // quiet; a file that cannot be written is named once and progress writing stops.
  void write_progress(const std::string& finished);

 private:
  AortaListener(ReportSetup setup, RunRecord& record, std::vector<std::string> names, std::vector<Output> outputs,
                std::function<RunProducts()> products);
  // A SIGINT/SIGTERM/SIGHUP that no stage's failure stands for (it came between
  // stages, after the last one, or while the reports were written) gets a failed record
  // of its own, run_interrupted, so the reports agree with the exit status 1. True when
  // that record was added now.
  bool record_late_interruption();
  // Holds the test's record to gtest's verdict (adding one for a test the fixture never
  // reached); true when the test was a stage, not a sub-test.
  bool record_verdict(const ::testing::TestInfo& info);

  ReportSetup setup_;
  std::vector<std::string> names_;
  std::vector<Output> outputs_;
  std::function<RunProducts()> products_;
  RunRecord& record_;
  ReportFiles files_;
  std::vector<std::string> progress_names_;  // the outputs rewritten after each stage
  std::vector<Output> progress_outputs_;     // made once, from names already checked
  ReportFiles progress_files_;
  InterruptWatch interrupt_;
};

}  // namespace aorta::report
