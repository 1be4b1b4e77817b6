// The gtest listener behind every report file: copies each stage's outcome into a
// RunRecord as tests end, and writes the reports once, when the program ends.
// It never throws and never raises gtest failures. Every file is written whole or
// not at all (write_file_atomically), so a full disk leaves no empty report that
// looks written and never replaces an earlier good one; each file that could not be
// written is named on stderr with the reason, and write_failed() lets main change
// the exit status.
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
  // Extra pages for <suite>_html/, rendered before the report (the Run Deck): pairs
  // of (file name, content), written like every other report file.
  using ExtraPages = std::function<std::vector<std::pair<std::string, std::string>>(const RunRecord& run)>;

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
  void write_reports();
  void write_file(const std::string& format, const std::filesystem::path& path);
  // Writes content to path atomically; false (and the file named on stderr) when it could not.
  bool write_text(const std::filesystem::path& path, const std::string& content, bool announce = false);
  // <suite>.html, the Full Log pages, the input copies and the zip bundle.
  void write_html_bundle();
  // Prints "aorta_suite: <what>" to stderr and sets write_failed().
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
