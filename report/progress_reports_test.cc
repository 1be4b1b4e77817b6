// The progress reports: after each stage the JUnit file and the HTML report say what
// finished and that the run has not (a failed run_incomplete), quietly; the final
// reports replace them and leave nothing of them behind.
#include "report/progress_reports.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <gtest/gtest.h>

#include "report/aorta_listener.h"
#include "tests/temp_dir.h"

namespace aorta::report {
namespace {
namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> files_under(const fs::path& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) files.push_back(fs::relative(e.path(), dir).string());
  std::sort(files.begin(), files.end());
  return files;
}

RunRecord run_with_one_stage() {
  RunRecord run;
  run.suite = "aorta_single";
  run.run_id = "r1";
  StageResult launched;
  launched.name = launched.stage = "test_launch_container";
  launched.outcome = job::Outcome::kPassed;
  run.stages.push_back(launched);
  return run;
}

TEST(ProgressReports, OnlyTheJunitFileAndTheHtmlReportAreRewrittenAfterAStage) {
  EXPECT_EQ(progress_outputs(default_outputs()), (std::vector<std::string>{"junit", "html"}));
  EXPECT_EQ(progress_outputs({"log", "deck"}), std::vector<std::string>{});
}

TEST(ProgressReports, AfterAStageTheReportsNameWhatFinishedAndFailQuietly) {
  aorta::testing::TempDir dir;
  ReportSetup setup;
  setup.report_dir = dir.path();
  RunRecord run = run_with_one_stage();
  auto listener = AortaListener::create(setup, run, {"junit", "log", "html"});
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  ::testing::internal::CaptureStdout();
  (*listener)->write_progress("test_launch_container");
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), "");  // rewritten after every stage: no "wrote" lines
  const std::string xml = slurp(dir.path() / "aorta_single.xml");
  EXPECT_NE(xml.find("<testcase name=\"test_launch_container\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase name=\"run_incomplete\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("the last stage to finish was test_launch_container"), std::string::npos) << xml;
  EXPECT_NE(xml.find("failures=\"1\""), std::string::npos) << xml;  // a killed run is never green
  EXPECT_FALSE(fs::exists(dir.path() / "aorta_single.log"));        // the live log's path: left to it
  EXPECT_NE(slurp(dir.path() / "aorta_single.html").find("run_incomplete"), std::string::npos);
  EXPECT_EQ(run.stages.size(), 1u);  // the record itself is untouched
}

TEST(ProgressReports, TheFinalReportsReplaceThemAndLeaveNothingOfThem) {
  aorta::testing::TempDir dir;
  ReportSetup setup;
  setup.report_dir = dir.path();
  RunRecord run = run_with_one_stage();
  auto listener = AortaListener::create(setup, run, {"junit", "html"});
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  (*listener)->write_progress("test_launch_container");
  const auto during = files_under(dir.path());
  ASSERT_TRUE(std::any_of(during.begin(), during.end(),
                          [](const std::string& f) { return f.find("run_incomplete") != std::string::npos; }));
  (*listener)->write_reports();
  EXPECT_EQ(slurp(dir.path() / "aorta_single.xml").find("run_incomplete"), std::string::npos);
  for (const auto& f : files_under(dir.path())) EXPECT_EQ(f.find("run_incomplete"), std::string::npos) << f;
}

}  // namespace
}  // namespace aorta::report
