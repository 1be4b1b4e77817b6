// The gtest listener behind every report file: copies each stage's outcome into a
// RunRecord as tests end, and writes the reports once, when the program ends.
// It never throws and never raises gtest failures; a write failure is printed and
// reported through write_failed() so main can change the exit status.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "report/run_record.h"

namespace aorta::report {

class AortaListener final : public ::testing::EmptyTestEventListener {
 public:
  // What gtest does not know about a stage: its log, sub-tests and clean messages.
  using StageDetails = std::function<std::optional<StageResult>(const std::string& test_name)>;
  // Writes extra pages into <suite>_html/ before the report is rendered (the Run Deck).
  using ExtraPages = std::function<void(const RunRecord& run, const std::filesystem::path& folder)>;

  // Reports go to report_dir/<suite>.<ext> and report_dir/<suite>_html/; the JUnit
  // XML also to each extra path. input_files (cluster, config, threshold file) are
  // copied into <suite>_html/ as "<prefix>_<name>": pairs of (prefix, path).
  AortaListener(std::filesystem::path report_dir, std::string suite, std::string run_id, StageDetails details,
                std::vector<std::filesystem::path> extra_junit_paths,
                std::vector<std::pair<std::string, std::filesystem::path>> input_files, ExtraPages extra_pages = {});

  void OnTestProgramStart(const ::testing::UnitTest& unit_test) override;
  void OnTestEnd(const ::testing::TestInfo& test_info) override;
  void OnTestProgramEnd(const ::testing::UnitTest& unit_test) override;

  const RunRecord& record() const { return record_; }
  bool write_failed() const { return write_failed_; }

 private:
  void write_file(const std::string& format, const std::filesystem::path& path);
  // <suite>.html, the Full Log pages, the input copies and the zip bundle.
  void write_html_bundle();
  void fail_write(const std::string& what);
  std::filesystem::path report_dir_;
  StageDetails details_;
  std::vector<std::filesystem::path> extra_junit_paths_;
  std::vector<std::pair<std::string, std::filesystem::path>> input_files_;
  ExtraPages extra_pages_;
  RunRecord record_;
  bool write_failed_ = false;
};

}  // namespace aorta::report
