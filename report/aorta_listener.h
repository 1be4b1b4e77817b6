// The gtest listener behind every report file: copies each stage's outcome into a
// RunRecord as tests end, and when the program ends drives the outputs named at
// construction (report/outputs.h), in that order. It never throws and never raises
// gtest failures. Every file is written whole or not at all (write_file_atomically),
// so a full disk leaves no empty report that looks written and never replaces an
// earlier good one; each file that could not be written is named on stderr with the
// reason, and write_failed() lets main change the exit status.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/result.h"
#include "report/outputs.h"
#include "report/run_record.h"

namespace aorta::report {

class AortaListener final : public ::testing::EmptyTestEventListener, private OutputSink {
 public:
  // What gtest does not know about a stage: its log, sub-tests and clean messages.
  using StageDetails = std::function<std::optional<StageResult>(const std::string& test_name)>;

  // Reports go to context.report_dir; outputs are names of report/outputs.h, and an
  // unknown one is refused here, before anything runs.
  static Result<std::unique_ptr<AortaListener>> create(ReportContext context, std::string suite, std::string run_id,
                                                       StageDetails details,
                                                       const std::vector<std::string>& outputs = default_outputs());

  void OnTestProgramStart(const ::testing::UnitTest& unit_test) override;
  void OnTestEnd(const ::testing::TestInfo& test_info) override;
  void OnTestProgramEnd(const ::testing::UnitTest& unit_test) override;

  const RunRecord& record() const { return record_; }
  bool write_failed() const { return write_failed_; }
  // Runs every output on the record as it stands (what OnTestProgramEnd does).
  void write_reports();

 private:
  AortaListener(ReportContext context, std::string suite, std::string run_id, StageDetails details,
                std::vector<std::unique_ptr<Output>> outputs);
  bool file(const std::filesystem::path& path, const std::string& content, bool announce) override;
  // Prints "aorta_suite: <what>" to stderr and sets write_failed().
  void fail(const std::string& what) override;
  const std::filesystem::path& report_dir() const override { return context_.report_dir; }

  ReportContext context_;
  StageDetails details_;
  std::vector<std::unique_ptr<Output>> outputs_;
  RunRecord record_;
  bool write_failed_ = false;
};

}  // namespace aorta::report
