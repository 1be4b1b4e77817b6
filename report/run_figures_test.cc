// What compare reads of a report JSON (issue 29, item 8): the compared figures, with
// limits on what the file may hold, each refusal naming the file and the limit.
#include "report/run_figures.h"

#include <fstream>

#include <gtest/gtest.h>

#include "tests/temp_dir.h"

namespace aorta::report {
namespace {

using aorta::testing::TempDir;

// Only the compared metrics under the top-level "performance" and the step_time_ms of
// per_rank_summary[*].steps[*] count; the same keys elsewhere do not.
TEST(RunFigures, ReadsTheComparedFiguresAndNothingElse) {
  const std::string text = R"({
    "performance": {"avg_iteration_time_ms": 10.5, "avg_comm_ratio": null, "p95_step_time_ms": 7,
                    "not_compared": 3, "nested": {"avg_compute_ratio": 0.5}},
    "per_rank_summary": [
      {"steps": [{"step": 1, "step_time_ms": 1.5}, {"step_time_ms": 2}]},
      {"steps": [{"step_time_ms": 4, "other": {"step_time_ms": 99}}]},
      {"steps": "none"}, {"step_time_ms": 98}],
    "other": {"performance": {"avg_step_time_ms": 97}, "steps": [{"step_time_ms": 96}]}})";
  auto got = figures_from_json(text, "r.json");
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got->source, "r.json");
  EXPECT_EQ(got->performance, (std::map<std::string, double>{{"avg_iteration_time_ms", 10.5}, {"p95_step_time_ms", 7}}));
  EXPECT_EQ(got->step_times_ms, (std::vector<double>{1.5, 2, 4}));
}

struct Refused {
  const char* what;
  std::string text;
  ReportLimits limits;
  const char* message;  // after "r.json: "
};

// Each limit at its edge: the document just within it reads, one more is refused.
// Values are counted by hand: every object, array, key's value and element is one.
TEST(RunFigures, EachLimitRefusesTheFirstDocumentPastIt) {
  const std::string perf = R"("performance": {})";
  const Refused cases[] = {
      // object + 63 arrays = 64 levels; one more array is 65.
      {"depth", "{" + perf + ", \"x\": " + std::string(63, '[') + std::string(63, ']') + "}", {}, nullptr},
      {"depth", "{" + perf + ", \"x\": " + std::string(64, '[') + std::string(64, ']') + "}", {},
       "nests deeper than 64 levels of arrays and objects"},
      // object, performance, x, and 7 or 8 numbers: 10 or 11 values.
      {"values", "{" + perf + ", \"x\": [1,2,3,4,5,6,7]}", {.max_values = 10}, nullptr},
      {"values", "{" + perf + ", \"x\": [1,2,3,4,5,6,7,8]}", {.max_values = 10}, "holds more than 10 JSON values"},
      {"steps", "{" + perf + R"(, "per_rank_summary": [{"steps": [{"step_time_ms": 1}, {"step_time_ms": 2}]}]})",
       {.max_step_times = 2}, nullptr},
      {"steps",
       "{" + perf + R"(, "per_rank_summary": [{"steps": [{"step_time_ms": 1}]}, {"steps": [{"step_time_ms": 2}, {"step_time_ms": 3}]}]})",
       {.max_step_times = 2}, "holds more than 2 step times"},
  };
  for (const auto& c : cases) {
    auto got = figures_from_json(c.text, "r.json", c.limits);
    if (!c.message) {
      EXPECT_TRUE(got.ok()) << c.what << ": " << got.error().message;
      continue;
    }
    ASSERT_FALSE(got.ok()) << c.what;
    EXPECT_EQ(got.error().message.rfind(std::string("r.json: ") + c.message, 0), 0u) << got.error().message;
  }
}

TEST(RunFigures, WhatIsNotAReportSaysSo) {
  const std::pair<std::string, std::string> cases[] = {
      {"[1, 2]", "r.json: no \"performance\" object"},
      {R"({"performance": [1]})", "r.json: no \"performance\" object"},
      {R"({"performance": {}, "x": 1e400})", "r.json: not JSON"},
      {"{\"performance\": {}, \"x\": \"\xff\"}", "r.json: not JSON"},
      {R"({"performance": {}})", ""},
  };
  for (const auto& [text, message] : cases) {
    auto got = figures_from_json(text, "r.json");
    if (message.empty()) {
      EXPECT_TRUE(got.ok()) << text;
    } else {
      ASSERT_FALSE(got.ok()) << text;
      EXPECT_EQ(got.error().message.rfind(message, 0), 0u) << got.error().message;
    }
  }
}

// The probe's shape at the default limits, through the file: an array of 2^24 numbers
// (32 MiB), one value past the limit with the array itself, was a 0.4 GB document
// tree (100 MiB of `[]` took 2.3 GB); now the read stops at the limit.
TEST(RunFigures, AReportOfMillionsOfValuesIsRefusedNamingTheFile) {
  TempDir dir;
  const auto file = dir.path() / "aorta_benchmark_report.json";
  {
    const std::size_t n = std::size_t{1} << 24;
    std::string text(2 * n + 1, '0');  // "[0,0,...,0]"
    text.front() = '[';
    for (std::size_t i = 2; i < 2 * n; i += 2) text[i] = ',';
    text.back() = ']';
    std::ofstream(file, std::ios::binary) << text;
  }
  auto got = load_run_figures(dir.path());
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().message, file.string() + ": holds more than 16777216 JSON values (a report holds about 10 a step)");
}

TEST(RunFigures, DeepNestingInAFileIsRefusedNamingTheFile) {
  TempDir dir;
  const auto file = dir.write("deep.json", "{\"performance\": {}, \"x\": " + std::string(100, '[') + std::string(100, ']') + "}");
  auto got = load_run_figures(file);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().message.rfind(file.string() + ": nests deeper than 64 levels of arrays and objects", 0), 0u)
      << got.error().message;
}

// Issue 42, 6: a report or analyze JSON whose traces parsed in part holds only the
// ranks that did; compared, it passed a run that lost its slowest rank. Refused naming
// the file and its first errors; "success" (or no parse record) is read as before.
TEST(RunFigures, AReportOfAPartialParseIsRefusedNamingItsErrors) {
  const std::string head = R"({"performance": {"avg_iteration_time_ms": 10}, "parse": {"status": ")";
  EXPECT_TRUE(figures_from_json(head + R"(success", "errors": []}})", "r.json").ok());
  EXPECT_TRUE(figures_from_json(R"({"performance": {}, "parse": null})", "r.json").ok());
  const auto partial = figures_from_json(head + R"(partial", "errors": ["a", "b", "c", "d", "e"]}})", "r.json");
  ASSERT_FALSE(partial.ok());
  EXPECT_EQ(partial.error().message,
            "r.json: its traces parsed in part (parse partial), so compare would judge the run by the ranks that did; "
            "not compared: a; b; c; and 2 more");
  const auto failed = figures_from_json(R"({"parse": {"errors": ["x"], "status": "failed"}, "performance": {}})", "r.json");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message.rfind("r.json: its traces parsed in part (parse failed)", 0), 0u);
}

// What ran, for compare's warnings (issue 45, 6): each rank's parser in
// per_rank_summary's order, the report's configuration and analyze's kernel_selection
// as text (null is not recorded); the same keys elsewhere do not count.
TEST(RunFigures, ReadsWhatRanParsersAndSettings) {
  const std::string text = R"({
    "performance": {"avg_iteration_time_ms": 1, "parser": "x"},
    "per_rank_summary": [{"rank": 0, "parser": "tracelens_gpu_timeline"}, {"rank": 1, "parser": "basic_scan"}],
    "configuration": {"nccl_channels": 112, "compute_channels": null, "rccl_branch": "develop", "tuned": true,
                      "nested": {"deep": 1}},
    "kernel_selection": "include_unlinked",
    "other": {"kernel_selection": "linked_only", "configuration": {"nccl_channels": 1}, "parser": "y"}})";
  auto got = figures_from_json(text, "r.json");
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got->rank_parsers, (std::vector<std::string>{"tracelens_gpu_timeline", "basic_scan"}));
  EXPECT_EQ(got->configuration, (std::map<std::string, std::string>{{"kernel_selection", "include_unlinked"},
                                                                    {"nccl_channels", "112"},
                                                                    {"rccl_branch", "develop"},
                                                                    {"tuned", "true"}}));
}

}  // namespace
}  // namespace aorta::report
