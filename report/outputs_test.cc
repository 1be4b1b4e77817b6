// The one report pipeline: the listener writes exactly the outputs it was given, in
// order, and refuses an unknown name before anything runs.
#include "report/outputs.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "common/interrupt.h"
#include "report/aorta_listener.h"
#include "report/ci_metrics.h"
#include "tests/temp_dir.h"

namespace aorta::report {
namespace {
namespace fs = std::filesystem;

// The record a listener writes from: it must outlive the listener.
RunRecord test_run() {
  RunRecord run;
  run.suite = "aorta_single";
  run.run_id = "r1";
  return run;
}

TEST(ReportOutputs, AnUnknownNameIsRefusedNamingItAndTheKnownOnes) {
  auto made = create_outputs({"junit", "pdf"});
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().message, "unknown report output \"pdf\"; known: summary, junit, ci_metrics, log, deck, html, bundle");
  ReportSetup context;
  RunRecord run = test_run();
  auto listener = AortaListener::create(context, run, {"log", "xml"});
  ASSERT_FALSE(listener.ok());
  EXPECT_NE(listener.error().message.find("\"xml\""), std::string::npos);
  EXPECT_TRUE(create_outputs(default_outputs()).ok());
}

TEST(ReportOutputs, TheListenerWritesTheNamedOutputsOnlyWithTheContextsJunitOptions) {
  fs::path dir = fs::temp_directory_path() / ("aorta_outputs_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ReportSetup context;
  context.report_dir = dir;
  context.junit = {"rack7", JunitFamily::kLegacy};
  context.extra_junit_paths = {dir / "extra" / "copy.xml"};
  RunRecord run = test_run();
  auto listener = AortaListener::create(context, run, {"junit", "log"});
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  (*listener)->write_reports();
  EXPECT_FALSE((*listener)->write_failed());
  std::vector<std::string> written;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file()) written.push_back(fs::relative(e.path(), dir).string());
  std::sort(written.begin(), written.end());
  EXPECT_EQ(written, (std::vector<std::string>{"aorta_single.log", "aorta_single.xml", "extra/copy.xml"}));
  std::ifstream in(dir / "extra" / "copy.xml");
  std::stringstream xml;
  xml << in.rdbuf();
  EXPECT_NE(xml.str().find("<testsuite name=\"rack7.aorta_single\""), std::string::npos) << xml.str();
  fs::remove_all(dir);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Issue 16: the nodes' phase logs travel with the report (so in the zip too), each
// cut to its last MiB from a whole line, redacted, and linked from the HTML report.
// Row G23: <suite>_html/ holds a copy of the cluster file (as CVS's report folder does),
// redacted: the nodes stay, a password does not travel with the report.
TEST(ReportOutputs, TheClusterFileIsCopiedBesideTheReportRedacted) {
  aorta::testing::TempDir tmp;
  const fs::path dir = tmp.path();
  ReportSetup context;
  context.report_dir = dir / "report";
  context.input_files = {
      {"cluster", tmp.write("in/lab.json", R"({"username": "root", "password": "hunter2-cluster-secret", )"
                                           R"("node_dict": {"10.0.0.7": {}}})")}};
  RunRecord run = test_run();
  auto listener = AortaListener::create(context, run, {"html"});
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  (*listener)->write_reports();
  EXPECT_FALSE((*listener)->write_failed());
  const fs::path copy = dir / "report" / "aorta_single_html" / "cluster_lab.json";
  ASSERT_TRUE(fs::exists(copy));
  const std::string text = slurp(copy);
  EXPECT_EQ(text.find("hunter2-cluster-secret"), std::string::npos) << text;
  EXPECT_NE(text.find("10.0.0.7"), std::string::npos) << text;
  EXPECT_NE(text.find("\"username\""), std::string::npos) << text;
}

TEST(ReportOutputs, NodeLogsAreCopiedBesideTheReportCutRedactedAndLinked) {
  fs::path dir = fs::temp_directory_path() / ("aorta_node_logs_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "run");
  std::string big(1536 * 1024 - 1, 'x');  // 1.5 MiB of one line, then the end
  big += "\nstep 9 loss 0.25 HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123\n";
  std::ofstream(dir / "run" / "benchmark-node-0.log", std::ios::binary) << big;
  std::ofstream(dir / "run" / "rccl-node-1.log", std::ios::binary) << "built\n";
  std::map<std::string, fs::path> artifacts = {{"benchmark_log_node_0", dir / "run" / "benchmark-node-0.log"},
                                               {"rccl_log_node_1", dir / "run" / "rccl-node-1.log"},
                                               {"torch_traces", dir / "run"}};
  ReportSetup context;
  context.report_dir = dir / "report";
  RunRecord run = test_run();
  auto listener = AortaListener::create(context, run, {"html"}, [&] { return RunProducts{{}, artifacts, {}}; });
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  (*listener)->write_reports();
  EXPECT_FALSE((*listener)->write_failed());
  const fs::path logs = dir / "report" / "aorta_single_html" / "node_logs";
  // The first line (1.5 MiB - 1 bytes of x) is longer than the MiB kept: it is left out whole.
  EXPECT_EQ(slurp(logs / "benchmark-node-0.log"),
            "[first " + std::to_string(1536 * 1024) + " bytes left out; the whole log is " +
                (dir / "run" / "benchmark-node-0.log").string() + "]\nstep 9 loss 0.25 HF_TOKEN=<redacted>\n");
  EXPECT_EQ(slurp(logs / "rccl-node-1.log"), "built\n");
  const std::string html = slurp(dir / "report" / "aorta_single.html");
  EXPECT_NE(html.find("<a href=\"aorta_single_html/node_logs/benchmark-node-0.log\">benchmark-node-0.log</a>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("aorta_single_html/node_logs/rccl-node-1.log"), std::string::npos);
  fs::remove_all(dir);
}

// Issue 45, 8: every file a person opens is named by a "wrote" line, the CI metrics too.
TEST(ReportOutputs, TheCiMetricsFilesAreNamedAsWritten) {
  aorta::testing::TempDir dir;
  ReportSetup context;
  context.report_dir = dir.path();
  RunRecord run = test_run();
  auto listener = AortaListener::create(context, run, {"ci_metrics"});
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  ::testing::internal::CaptureStdout();
  (*listener)->write_reports();
  const std::string said = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(said, "aorta_suite: wrote " + (dir.path() / kOpenMetricsFile).string() + "\naorta_suite: wrote " +
                      (dir.path() / kPlotCsvFile).string() + "\n");
}

// Issue 29 (11): a SIGTERM that came after the last stage, as the reports were being
// written, is named in them: a failed run_interrupted record, as the exit status is 1.
// In a child process: the first signal is process state the other tests must not see.
using ReportOutputsDeathTest = ::testing::Test;

// The child's part: 7 when both reports name the signal.
int late_signal_child(const fs::path& dir) {
  install_interrupt_handlers();
  ReportSetup context;
  context.report_dir = dir;
  RunRecord run = test_run();
  auto listener = AortaListener::create(context, run, {"junit", "log"});
  if (!listener.ok()) return 2;
  raise(SIGTERM);
  (*listener)->OnTestProgramEnd(*::testing::UnitTest::GetInstance());
  const std::string xml = slurp(dir / "aorta_single.xml");
  const std::string log = slurp(dir / "aorta_single.log");
  const std::string said = "the run was interrupted by SIGTERM after its stages had run";
  const bool named = xml.find("name=\"run_interrupted\"") != std::string::npos && xml.find(said) != std::string::npos &&
                     log.find(said) != std::string::npos;
  return named ? 7 : 1;
}

TEST_F(ReportOutputsDeathTest, ALateSignalIsNamedInTheReports) {
  fs::path dir = fs::temp_directory_path() / ("aorta_late_signal_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  EXPECT_EXIT(std::exit(late_signal_child(dir)), ::testing::ExitedWithCode(7), "");
  fs::remove_all(dir);
}

// Issue 44, 4: a stage whose text merely says "interrupted by SIGTERM" (a node's output,
// before any signal) is not the interruption: a later signal still gets its record.
int named_text_child(const fs::path& dir) {
  install_interrupt_handlers();
  ReportSetup context;
  context.report_dir = dir;
  RunRecord run = test_run();
  StageResult echoed;
  echoed.name = echoed.stage = "test_run_benchmark";
  echoed.outcome = job::Outcome::kFailed;
  echoed.failures = {"node1: the training was interrupted by SIGTERM"};
  run.stages.push_back(echoed);
  auto listener = AortaListener::create(context, run, {"junit"});
  if (!listener.ok()) return 2;
  raise(SIGTERM);
  (*listener)->OnTestProgramEnd(*::testing::UnitTest::GetInstance());
  return slurp(dir / "aorta_single.xml").find("name=\"run_interrupted\"") != std::string::npos ? 7 : 1;
}

TEST_F(ReportOutputsDeathTest, AStageTextNamingTheSignalIsNotTheInterruption) {
  aorta::testing::TempDir dir;
  EXPECT_EXIT(std::exit(named_text_child(dir.path())), ::testing::ExitedWithCode(7), "");
}

}  // namespace
}  // namespace aorta::report
