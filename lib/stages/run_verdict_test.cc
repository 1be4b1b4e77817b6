// The verdict of aorta_benchmark_report.json: a per-rank gate's subject from the
// thresholds stage's body to its sub-test's own failure (JUnit's <failure>, the HTML
// row, the deck), each configured gate's verdict read from the run's records, and
// error_message saying why a run failed; the gates against the report's schema.
#include "stages/run_verdict.h"

#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "stages/specs.h"
#include "tests/fake_transport.h"
#include "tests/report_schema.h"
#include "tests/temp_dir.h"

namespace aorta::stages {
namespace {

// Three ranks on nodes n0..n2, GPU 7 each; rank 2's GEMMs 1.5x the others' (mean
// kernel 10, 11, 15 us: slowdown 15 / 11).
metrics::RunMetrics slow_rank_two() {
  metrics::RunMetrics run;
  for (int r = 0; r < 3; ++r) {
    metrics::RankMetrics m;
    m.rank = r;
    m.node = "n" + std::to_string(r);
    m.gpu = 7;
    const double gemm_us = r == 2 ? 150 : 100 + 10 * r;
    m.diagnosis = metrics::RankDiagnosis{1000, {{"gemm", 10, gemm_us, 0}}, {}, {}};
    run.per_rank.push_back(m);
  }
  run.avg_compute_ratio = 0.5;
  return run;
}

struct GateRun {
  aorta::testing::FakeTransport fake;
  config::Variant variant;
  config::Cluster cluster;
  job::NodeExec exec{fake, variant, cluster};
  job::RunState state;
  std::vector<StageResult> records;
  GateRun() {
    variant.thresholds = {{"max_rank_compute_slowdown_ratio", 1.2}, {"min_compute_ratio", 0.4},
                          {"max_avg_iteration_ms", std::nullopt}, {"max_avg_step_time_ms", 100}};
    cluster.nodes = {{"n0", "", ""}};
    state.result = slow_rank_two();
  }
  StageContext context(bool prior_failure) {
    return {exec, state, [](const std::string&) {}, prior_failure, {}, records};
  }
  // The thresholds stage's record, as the fixture keeps it.
  void run_thresholds() {
    auto ctx = context(false);
    StageResult out = kValidateThresholds.body(ctx);
    out.name = out.stage = kValidateThresholds.test_name;
    out.outcome = out.verdict();
    records.push_back(out);
  }
};

TEST(RunVerdict, SlowRanksGateNamesItInItsOwnTestsFailure) {
  GateRun run;
  run.run_thresholds();
  const StageResult& stage = run.records.back();
  ASSERT_EQ(stage.subtests.size(), 3u);
  const job::SubTest& slowdown = stage.subtests[0];
  ASSERT_TRUE(slowdown.subject.has_value());
  EXPECT_EQ(slowdown.subject->text(), "n2 rank 2 (GPU 7)");
  const StageResult own = subtest_result(stage.name, "x", "thresholds", slowdown);
  ASSERT_EQ(own.failures.size(), 1u);
  EXPECT_EQ(own.failures[0], "Slowest rank's compute kernels take 1.3636x the median of the ranks, exceeds threshold "
                             "1.2: n2 rank 2 (GPU 7)");
  EXPECT_FALSE(stage.subtests[1].subject.has_value());  // a run-wide figure
}

TEST(RunVerdict, GatesAsRecordedAndWhyTheRunFailed) {
  GateRun run;
  run.records.push_back({.name = "test_collect_traces", .stage = "test_collect_traces",
                         .outcome = job::Outcome::kFailed, .failures = {"n1: no traces", "n2: no traces"}});
  run.run_thresholds();
  run.state.result->per_rank[2].diagnosis->classes[0].time_us = 100;  // never evaluated again
  const result_json::RunVerdict verdict = run_verdict(run.context(true));
  ASSERT_EQ(verdict.gates.size(), 3u);  // the null threshold is no gate
  EXPECT_EQ(verdict.gates[0].outcome, job::Outcome::kFailed);
  EXPECT_EQ(verdict.gates[1].outcome, job::Outcome::kPassed);
  EXPECT_EQ(verdict.gates[2].value, "max_avg_step_time_ms");
  EXPECT_EQ(verdict.gates[2].outcome, job::Outcome::kFailed);  // no steps: not measurable
  EXPECT_EQ(verdict.why_failed,
            "test_collect_traces: n1: no traces; test_validate_thresholds: gates failed: "
            "max_rank_compute_slowdown_ratio (actual 1.36364, max 1.2) on n2 rank 2 (GPU 7), max_avg_step_time_ms "
            "(Average step time not available: the traces have no ProfilerStep annotations)");
}

TEST(RunVerdict, GatesOfAThresholdsStageThatDidNotRunAreNotEvaluated) {
  GateRun run;
  auto verdict = run_verdict(run.context(false));
  ASSERT_EQ(verdict.gates.size(), 3u);
  EXPECT_EQ(verdict.gates[0].outcome, job::Outcome::kSkipped);
  EXPECT_FALSE(verdict.gates[0].record_only);
  EXPECT_EQ(verdict.gates[0].message, "test_validate_thresholds did not run");
  EXPECT_EQ(verdict.gates[0].limit, 1.2);
  EXPECT_EQ(verdict.gates[0].gate, metrics::ThresholdKind::kMax);
  EXPECT_TRUE(verdict.why_failed.empty());
  run.records.push_back({.name = "test_validate_thresholds", .outcome = job::Outcome::kSkipped,
                         .skip_reason = kSkipPriorFailure});
  verdict = run_verdict(run.context(true));
  EXPECT_EQ(verdict.gates[1].message, "test_validate_thresholds skipped: a prior lifecycle stage failed");
}

// The report's gates and error_message, and its gates against the schema.
TEST(RunVerdict, ReportCarriesEveryGateAndWhyAndPassesItsSchema) {
  GateRun run;
  run.run_thresholds();
  const auto report =
      result_json::benchmark_report(run.state, run.variant, run.cluster, false, run_verdict(run.context(false)));
  const auto& gates = report["gates"];
  ASSERT_EQ(gates.size(), 3u);
  EXPECT_EQ(gates[0]["key"], "max_rank_compute_slowdown_ratio");
  EXPECT_EQ(gates[0]["kind"], "max");
  EXPECT_EQ(gates[0]["unit"], "ratio");
  EXPECT_EQ(gates[0]["outcome"], "failed");
  EXPECT_NEAR(gates[0]["margin"].get<double>(), 1.2 - 15.0 / 11, 1e-12);
  EXPECT_EQ(gates[0]["subject"]["node"], "n2");
  EXPECT_EQ(gates[0]["subject"]["rank"], 2);
  EXPECT_EQ(gates[0]["subject"]["gpu"], 7);
  EXPECT_EQ(gates[1]["subject"], nullptr);
  EXPECT_EQ(gates[1]["outcome"], "passed");
  EXPECT_EQ(report["error_message"].get<std::string>().rfind("test_validate_thresholds: gates failed: ", 0), 0u);

  aorta::testing::TempDir dir;
  EXPECT_TRUE(aorta::testing::passes_report_schema(dir.write("gates.json", result_json::json_text(gates)), "gates"));
}

// test_generate_report writes the verdict of the records before it into the file.
TEST(RunVerdict, GenerateReportWritesTheRecordsVerdict) {
  GateRun run;
  aorta::testing::TempDir dir;
  run.state.output_root = dir.path();
  run.state.run_id = "0123456789abcdef0123456789abcdef";
  run.run_thresholds();
  auto ctx = run.context(true);
  const StageResult out = kGenerateReport.body(ctx);
  ASSERT_FALSE(out.failed()) << out.failures.front();
  std::ifstream in(dir.path() / "aorta_benchmark_report.json");
  const auto report = nlohmann::json::parse(in);
  ASSERT_EQ(report["gates"].size(), 3u);
  EXPECT_EQ(report["gates"][0]["subject"]["text"], "n2 rank 2 (GPU 7)");
  EXPECT_EQ(report["error_message"].get<std::string>().rfind("test_validate_thresholds: gates failed: ", 0), 0u);
}

TEST(RunVerdict, PassingRunHasNoErrorMessage) {
  GateRun run;
  run.variant.thresholds = {{"min_compute_ratio", 0.4}};
  run.run_thresholds();
  const auto verdict = run_verdict(run.context(false));
  EXPECT_TRUE(verdict.why_failed.empty());
  EXPECT_EQ(result_json::benchmark_report(run.state, run.variant, run.cluster, true, verdict)["error_message"], "");
}

}  // namespace
}  // namespace aorta::stages
