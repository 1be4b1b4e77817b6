// aorta_suite history run whole: its usage errors, a ROOT without a report, the
// --max-regression exit code and the JSON's keys.
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/history_fixture.h"
#include "tests/run_suite.h"

namespace aorta::app {
namespace {

using testing::run_suite;

TEST(HistoryCommand, UsageErrorsAndARootWithoutAReportExit2NamingWhat) {
  testing::TempDir dir;
  const std::string empty = (dir.path() / "empty").string();
  std::filesystem::create_directories(empty);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"history"}, "aorta_suite: history needs one ROOT"},
      {{"history", empty, "--last", "0"}, "aorta_suite: --last needs a whole number >= 1"},
      {{"history", empty, "--baseline-runs", "x"}, "aorta_suite: --baseline-runs needs a whole number >= 1"},
      {{"history", empty, "--max-regression", "-1"}, "aorta_suite: --max-regression -1: PCT must be a number >= 0"},
      {{"history", empty}, "aorta_suite: " + empty + ": no readable aorta_benchmark_report.json"},
  };
  for (const auto& [args, err] : cases) {
    const auto run = run_suite(args, dir.path());
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_EQ(run.err.substr(0, err.size()), err);
  }
}

TEST(HistoryCommand, MaxRegressionFailsOnANewestRunPastItAndTheJsonKeysAreStable) {
  testing::TempDir dir;
  nlohmann::json r = testing::sample_report();
  const double base = r["performance"]["avg_iteration_time_ms"].get<double>();
  for (int i = 1; i <= 3; ++i) {
    if (i == 3) r["performance"]["avg_iteration_time_ms"] = base * 1.2;
    testing::write_run(dir, "runs/run" + std::to_string(i), r, 1000 * i);
  }
  auto run = run_suite({"history", "runs", "--max-regression", "5", "--output", "h.json"}, dir.path());
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find(fmt::format("regressed: avg_iteration_time_ms in run3: {:.3f} ms against the rolling baseline "
                                     "{:.3f} ms: +20.00 % regressed (limit 5 %)",
                                     base * 1.2, base)),
            std::string::npos)
      << run.out;
  const auto doc = nlohmann::json::parse(std::ifstream(dir.path() / "h.json"));
  std::vector<std::string> keys;
  for (const auto& [key, value] : doc.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"changes", "named", "options", "regressed", "regressions", "root", "runs",
                                            "runs_read", "trends", "unreadable"}));  // nlohmann::json: sorted
  EXPECT_EQ(doc["regressions"][0]["run"], "run3");
  EXPECT_EQ(run_suite({"history", "runs", "--max-regression", "25"}, dir.path()).exit_code, 0);
}

}  // namespace
}  // namespace aorta::app
