// aorta_suite compare as a CI gate (issue 29, item 11 in part), run whole: a gate
// that compares nothing fails, and names from files reach the terminal printable.
#include <sys/stat.h>

#include <fstream>

#include <gtest/gtest.h>

#include "result_json/metrics_json.h"

#include "tests/gunzip.h"
#include "tests/run_suite.h"
#include "tests/temp_dir.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR

namespace aorta::app {
namespace {

using aorta::testing::run_suite;
using aorta::testing::TempDir;

struct CompareCase {
  std::vector<std::string> args;  // after "compare"
  int exit_code;
  std::string err;  // how stderr begins
};

// Each case run whole in dir: its exit status, how stderr begins, and for an input
// error (2) no verdict at all on stdout.
void expect_compare_cases(const std::vector<CompareCase>& cases, const std::filesystem::path& dir) {
  for (const auto& c : cases) {
    std::vector<std::string> args{"compare"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto run = run_suite(args, dir);
    EXPECT_EQ(run.exit_code, c.exit_code) << run.out << run.err;
    EXPECT_EQ(run.err.substr(0, c.err.size()), c.err);
    if (c.exit_code == 2) EXPECT_EQ(run.out, "");
  }
}

// A gate over metrics one run lacks passed every candidate (exit 0): now it is an
// input error (exit 2, as an unreadable input) naming the gate and both inputs.
TEST(CompareCommand, AGateThatComparesNothingFailsNamingTheGateAndBothInputs) {
  TempDir dir;
  dir.write("base.json", R"({"performance": {"avg_iteration_time_ms": 10, "avg_comm_ratio": 0.5}})");
  dir.write("cand.json", R"({"performance": {"avg_iteration_time_ms": 10}})");
  dir.write("other.json", R"({"performance": {"avg_compute_ratio": 0.5}})");
  const std::vector<CompareCase> cases = {
      // Without a gate, nothing in common is only shown.
      {{"base.json", "other.json"}, 0, ""},
      {{"base.json", "other.json", "--max-regression", "5.0"},
       2,
       "aorta_suite: --max-regression 5.0 compares nothing: baseline base.json and candidate other.json have no "
       "headline time (ms) in common; name a metric: KEY=PCT\n"},
      // A bare PCT gates the headline times only: a fraction in common is not enough.
      {{"base.json", "base.json", "--max-regression", "5"}, 0, ""},
      {{"other.json", "other.json", "--max-regression", "5"},
       2,
       "aorta_suite: --max-regression 5 compares nothing: baseline other.json and candidate other.json have no "
       "headline time (ms) in common; name a metric: KEY=PCT\n"},
      {{"base.json", "cand.json", "--max-regression", "avg_comm_ratio=5"},
       2,
       "aorta_suite: --max-regression avg_comm_ratio=5 compares nothing: avg_comm_ratio is not in both baseline "
       "base.json and candidate cand.json\n"},
      // Each gate compares one metric here.
      {{"base.json", "cand.json", "--max-regression", "5", "--max-regression", "avg_iteration_time_ms=1"}, 0, ""},
  };
  expect_compare_cases(cases, dir.path());
}

// Issue 42, 6: a trace folder with a rank that did not parse was compared on the ranks
// that did, every metric "same" and the gate passed. A partial input (a trace folder
// whose parse is partial, or a report or analyze JSON that says so) is an input error,
// exit 2 as an unreadable input, naming the side and its files, gate or no gate.
TEST(CompareCommand, APartialInputIsAnErrorNamingItsFiles) {
  TempDir dir;
  const std::filesystem::path data = AORTA_TEST_DATA_DIR;
  const std::string rank0 = aorta::testing::gunzip(data / "h200-torch2.11-kineto-nccl_rank0.json.gz");
  const std::string rank1 = aorta::testing::gunzip(data / "h200-torch2.11-kineto-nccl_rank1.json.gz");
  ASSERT_FALSE(rank0.empty());
  for (const std::string side : {"base", "cut", "fifo"}) dir.write(side + "/rank0.json", rank0);
  dir.write("base/rank1.json", rank1);
  dir.write("cut/rank1.json", rank1.substr(0, rank1.size() / 2));  // a copy that died
  ASSERT_EQ(::mkfifo((dir.path() / "fifo" / "rank1.json").c_str(), 0600), 0);
  ASSERT_EQ(run_suite({"analyze", "cut", "--output", "cut.json"}, dir.path()).exit_code, 3);
  const std::string partial = ": its traces parsed in part (parse partial), so compare would judge the run by the "
                              "ranks that did; not compared: ";
  const std::vector<CompareCase> cases = {
      {{"base", "base", "--max-regression", "5"}, 0, ""},  // whole: compared
      {{"base", "cut", "--max-regression", "5"}, 2, "aorta_suite: candidate cut" + partial + "cut/rank1.json: "},
      {{"cut", "base"}, 2, "aorta_suite: baseline cut" + partial + "cut/rank1.json: "},
      {{"base", "fifo", "--max-regression", "5"},
       2,
       "aorta_suite: candidate fifo" + partial + "fifo/rank1.json: not a regular file (a FIFO), not opened; not analyzed\n"},
      {{"base", "cut.json"}, 2, "aorta_suite: candidate cut.json" + partial + "cut/rank1.json: "},
  };
  expect_compare_cases(cases, dir.path());
  // A CI job that reads only --output learns it too (issue 45, 6): the refusal, no verdict.
  ASSERT_EQ(run_suite({"compare", "cut", "base", "--output", "out.json"}, dir.path()).exit_code, 2);
  const auto out = nlohmann::ordered_json::parse(std::ifstream(dir.path() / "out.json"));
  EXPECT_EQ(out["baseline"], "cut");
  const std::string refused = out["refused"].get<std::string>();
  EXPECT_EQ(refused.substr(0, 12 + partial.size()), "baseline cut" + partial) << refused;
  EXPECT_NE(refused.find("cut/rank1.json: file is truncated"), std::string::npos) << refused;
  EXPECT_TRUE(out["regressed"].is_null());
}

// Issue 45, 6: a CPU run against an H200 run ("1057.87 % worse") or runs of different
// rank counts, parsers or settings were compared without a word. Real traces: each
// difference is a warning line before the table and in --output; the exit is unchanged.
TEST(CompareCommand, RunsOfDifferentKindsAreWarnedOnTheConsoleAndInTheOutput) {
  TempDir dir;
  const std::filesystem::path data = AORTA_TEST_DATA_DIR;
  dir.write("h200/rank0.json", aorta::testing::gunzip(data / "h200-torch2.11-kineto-nccl_rank0.json.gz"));
  dir.write("h200/rank1.json", aorta::testing::gunzip(data / "h200-torch2.11-kineto-nccl_rank1.json.gz"));
  dir.write("cpu/rank0.json", aorta::testing::gunzip(data / "debian-torch1.13-gloo-legacy_rank0.json.gz"));
  const auto analyzed = run_suite({"analyze", "h200", "--include-unlinked-kernels", "--output", "unlinked.json"},
                                  dir.path());
  ASSERT_EQ(analyzed.exit_code, 0) << analyzed.err;
  const auto mixed = run_suite({"compare", "h200", "cpu", "--output", "out.json"}, dir.path());
  EXPECT_EQ(mixed.exit_code, 0) << mixed.out << mixed.err;
  const std::vector<std::string> warned = {
      "rank count differs: baseline 2 rank(s), candidate 1; the medians and spreads are over different ranks",
      "device differs: baseline GPU (tracelens_gpu_timeline x2), candidate CPU (cpu_timeline x1); the times are "
      "not of one machine, so a change is no regression"};
  EXPECT_NE(mixed.out.find("candidate cpu\nwarning: " + warned[0] + "\nwarning: " + warned[1] + "\n"),
            std::string::npos)
      << mixed.out;
  const auto out = nlohmann::ordered_json::parse(std::ifstream(dir.path() / "out.json"));
  EXPECT_EQ(out["mismatches"].get<std::vector<std::string>>(), warned);
  const auto selection = run_suite({"compare", "h200", "unlinked.json"}, dir.path());
  EXPECT_NE(selection.out.find("\nwarning: kernel_selection differs: baseline linked_only, candidate "
                               "include_unlinked; the runs are not set up alike\n"),
            std::string::npos)
      << selection.out;
  const auto alike = run_suite({"compare", "h200", "h200"}, dir.path());
  EXPECT_EQ(alike.exit_code, 0);
  EXPECT_EQ(alike.out.find("warning:"), std::string::npos) << alike.out;
}

// The words above the table name each side's profiled window: ProfilerStep#3..#6 in both
// ranks of the real Aorta traces are 4 steps, read from the traces and from a report alike
// (they said "? vs ? steps": step_count is no compared metric and was dropped).
TEST(CompareCommand, TheWindowsStepsAreNamedFromTracesAndReports) {
  TempDir dir;
  const std::filesystem::path data = AORTA_TEST_DATA_DIR;
  for (int r : {0, 1})
    dir.write("aorta/rank" + std::to_string(r) + ".json",
              aorta::testing::gunzip(data / ("h200-aorta-overlap_rank" + std::to_string(r) + ".pt.trace.json.gz")));
  ASSERT_EQ(run_suite({"analyze", "aorta", "--output", "aorta.json"}, dir.path()).exit_code, 0);
  const auto run = run_suite({"compare", "aorta", "aorta.json"}, dir.path());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("(the profiled window of 4 vs 4 steps)"), std::string::npos) << run.out;
}

// Issue 42, 6: a gated metric with a baseline of 0 passed as "n/a" (exit 0). Every
// gated metric that cannot be judged is an input error, as a gate that compares
// nothing is: exit 2 naming the gate, the metric, why and both inputs. (A value that
// is not finite cannot come from a file, 1e999 is not JSON here: CompareRuns's
// AGatedMetricThatCannotBeJudgedIsNamed has it.)
TEST(CompareCommand, AGatedMetricThatCannotBeJudgedFailsNamingItAndBothInputs) {
  TempDir dir;
  dir.write("zero.json", R"({"performance": {"avg_iteration_time_ms": 0, "avg_step_time_ms": 0}})");
  dir.write("cand.json", R"({"performance": {"avg_iteration_time_ms": 100, "avg_step_time_ms": 100}})");
  dir.write("iter.json", R"({"performance": {"avg_iteration_time_ms": 100}})");
  const std::string zero = "its baseline is 0 (candidate 100): no change in % to judge";
  const std::vector<CompareCase> cases = {
      {{"zero.json", "cand.json", "--max-regression", "avg_iteration_time_ms=5"},
       2,
       "aorta_suite: --max-regression avg_iteration_time_ms=5 cannot judge avg_iteration_time_ms: " + zero +
           " (baseline zero.json, candidate cand.json)\n"},
      {{"zero.json", "cand.json", "--max-regression", "5"},
       2,
       "aorta_suite: --max-regression 5 cannot judge avg_iteration_time_ms: " + zero +
           " (baseline zero.json, candidate cand.json); nor avg_step_time_ms (" + zero + ")\n"},
      {{"cand.json", "iter.json", "--max-regression", "5"},
       2,
       "aorta_suite: --max-regression 5 cannot judge avg_step_time_ms: in the baseline only (baseline cand.json, "
       "candidate iter.json)\n"},
      {{"cand.json", "iter.json", "--max-regression", "avg_iteration_time_ms=5"}, 0, ""},  // the one named is judged
      {{"zero.json", "cand.json"}, 0, ""},  // no gate: shown as n/a
  };
  expect_compare_cases(cases, dir.path());
}

// A file name is bytes: an escape in it must not reach the terminal as one.
TEST(CompareCommand, NamesFromFilesReachTheTerminalPrintable) {
  TempDir dir;
  const std::string titled = "b\x1b]0;owned\x07.json", cleared = "bad\x1b[2J.json";
  dir.write(titled, R"({"performance": {"avg_iteration_time_ms": 10}})");
  dir.write(cleared, "not json");
  const auto ok = run_suite({"compare", titled, titled}, dir.path());
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out.find('\x1b'), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("baseline  b\\x1b]0;owned\\x07.json\n"), std::string::npos) << ok.out;
  const auto bad = run_suite({"compare", titled, cleared}, dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.find('\x1b'), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("candidate bad\\x1b[2J.json: not JSON"), std::string::npos) << bad.err;
}

// The diagnosis rows after the metrics, worked by hand: GEMM's share 0.25 -> 0.2 is
// -5 percentage points, ratio 0.8, no verdict but "changed"; all-reduce at 4194304 B
// 40 -> 30 GB/s is -10, ratio 0.75, 25 % worse. No --max-regression reaches them.
TEST(CompareCommand, DiagnosisRowsAfterTheMetricsAndInTheOutput) {
  TempDir dir;
  auto report = [](double share, double gbps) {
    return R"({"performance": {"avg_iteration_time_ms": 10}, "diagnosis": {"ranks": [{"kernel_classes": [
        {"class": "gemm", "share_of_window": )" + std::to_string(share) + R"(}], "collectives": [
        {"collective": "allreduce", "message_bytes": 4194304, "busbw_gbps": )" + std::to_string(gbps) + "}]}]}}";
  };
  dir.write("base.json", report(0.25, 40));
  dir.write("cand.json", report(0.2, 30));
  dir.write("plain.json", R"({"performance": {"avg_iteration_time_ms": 10}})");
  const auto run = run_suite({"compare", "base.json", "cand.json", "--max-regression", "0", "--output", "out.json"},
                             dir.path());
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string metric = "avg_iteration_time_ms", share = "\nshare gemm                    25.00 %      20.00 %"
                                                               "     -5.00 pp   0.8000  changed\n";
  const std::string busbw = "busbw allreduce           40.000 GB/s  30.000 GB/s      -10.000   0.7500  worse (25.00 % "
                            "worse) at 4194304 B\nper-step times:";
  EXPECT_NE(run.out.find(share + busbw), std::string::npos) << run.out;
  EXPECT_LT(run.out.find(metric), run.out.find(share)) << run.out;
  const auto out = nlohmann::ordered_json::parse(std::ifstream(dir.path() / "out.json"));
  EXPECT_DOUBLE_EQ(out["diagnosis"]["kernel_classes"][0]["change"].get<double>(), -0.05);
  EXPECT_DOUBLE_EQ(out["diagnosis"]["busbw"][0]["ratio"].get<double>(), 0.75);
  EXPECT_EQ(out["diagnosis"]["busbw"][0]["verdict"], "worse");
  EXPECT_FALSE(out["regressed"].get<bool>());
  const auto plain = run_suite({"compare", "plain.json", "cand.json", "--output", "plain-out.json"}, dir.path());
  EXPECT_NE(plain.out.find("\ndiagnosis: not compared, baseline plain.json: no \"diagnosis\" object (a report from "
                           "before the diagnosis)\nper-step times:"),
            std::string::npos)
      << plain.out;
  EXPECT_EQ(nlohmann::ordered_json::parse(std::ifstream(dir.path() / "plain-out.json"))["diagnosis"]["note"],
            "baseline plain.json: no \"diagnosis\" object (a report from before the diagnosis)");
}

}  // namespace
}  // namespace aorta::app
