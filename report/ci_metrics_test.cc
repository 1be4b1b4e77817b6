// Issue 31, 5: a gate's value, limit and margin where CI dashboards read them. The
// numbers here are worked by hand from the record below.
#include "report/ci_metrics.h"

#include <gtest/gtest.h>

#include "stages/stage.h"

namespace aorta::report {
namespace {

RunRecord record_with_gates() {
  RunRecord run;
  run.suite = "aorta_single";
  job::SubTest slow{.kind = job::SubTestKind::kThreshold, .key = "metric", .value = "max_avg_iteration_ms",
                    .outcome = job::Outcome::kFailed, .message = "too slow", .actual = 1250, .limit = 1000,
                    .gate = metrics::ThresholdKind::kMax, .unit = metrics::MetricUnit::kMs};
  job::SubTest overlap{.kind = job::SubTestKind::kThreshold, .key = "metric", .value = "min_overlap_ratio",
                       .outcome = job::Outcome::kPassed, .actual = 0.75, .limit = 0.5, .gate = metrics::ThresholdKind::kMin};
  StageResult stage;
  stage.name = stage.stage = "test_validate_thresholds";
  stage.outcome = job::Outcome::kFailed;
  for (const auto* gate : {&slow, &overlap})
    stage.tests.push_back(
        stages::subtest_result(stage.name, stage.name + "/" + job::test_name_part(gate->value), "thresholds", *gate));
  run.stages.push_back(stage);
  return run;
}

metrics::RunMetrics result() {
  metrics::RunMetrics r;
  r.avg_iteration_time_ms = 1250;
  r.avg_overlap_ratio = 0.75;
  return r;
}

TEST(CiMetrics, OpenMetricsHoldsEachGatesActualLimitAndMargin) {
  const RunRecord run = record_with_gates();
  const metrics::RunMetrics r = result();
  const std::string text = openmetrics_text(run, &r);
  for (const char* line : {"# TYPE aorta_avg_iteration_time_ms gauge\naorta_avg_iteration_time_ms 1250\n",
                           "aorta_avg_overlap_ratio 0.75\n",
                           "# TYPE aorta_gate_actual gauge\naorta_gate_actual{gate=\"max_avg_iteration_ms\"} 1250\n"
                           "aorta_gate_actual{gate=\"min_overlap_ratio\"} 0.75\n",
                           "aorta_gate_limit{gate=\"max_avg_iteration_ms\"} 1000\n",
                           // max: limit - actual (failed by 250 ms); min: actual - limit
                           "aorta_gate_margin{gate=\"max_avg_iteration_ms\"} -250\n"
                           "aorta_gate_margin{gate=\"min_overlap_ratio\"} 0.25\n",
                           "aorta_gate_passed{gate=\"max_avg_iteration_ms\"} 0\n"
                           "aorta_gate_passed{gate=\"min_overlap_ratio\"} 1\n",
                           "aorta_tests{outcome=\"passed\"} 1\naorta_tests{outcome=\"failed\"} 2\n"
                           "aorta_tests{outcome=\"skipped\"} 0\n# EOF\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin\n" << text;
  // Each family declared once (OpenMetrics refuses a family split in two).
  EXPECT_EQ(text.find("# TYPE aorta_gate_margin"), text.rfind("# TYPE aorta_gate_margin"));
  EXPECT_EQ(text.substr(text.size() - 6), "# EOF\n");
}

// One time unit throughout (issue 45, 5): the iteration time's std, min and max are
// in ms beside its average, never in us.
TEST(CiMetrics, EveryTimeIsInMilliseconds) {
  metrics::RunMetrics r = result();
  r.std_iteration_time_us = 1500;
  r.min_iteration_time_us = 1249000;
  r.max_iteration_time_us = 1251500;
  const std::string text = openmetrics_text(RunRecord{}, &r);
  for (const char* line : {"aorta_std_iteration_time_ms 1.5\n", "aorta_min_iteration_time_ms 1249\n",
                           "aorta_max_iteration_time_ms 1251.5\n"})
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin\n" << text;
  EXPECT_EQ(text.find("_us"), std::string::npos) << text;
}

TEST(CiMetrics, PlotCsvIsOneHeaderRowAndOneValueRow) {
  const RunRecord run = record_with_gates();
  const std::string csv = plot_csv(run, nullptr);  // no parsed result: the gates only
  EXPECT_EQ(csv,
            "gate_actual:max_avg_iteration_ms,gate_actual:min_overlap_ratio,gate_limit:max_avg_iteration_ms,"
            "gate_limit:min_overlap_ratio,gate_margin:max_avg_iteration_ms,gate_margin:min_overlap_ratio,"
            "gate_passed:max_avg_iteration_ms,gate_passed:min_overlap_ratio\n"
            "1250,0.75,1000,0.5,-250,0.25,0,1\n");
}

// The testcase's system-out (Jenkins shows it for a passing case) has the margin.
TEST(CiMetrics, APassingGatesLogShowsItsMargin) {
  const RunRecord run = record_with_gates();
  const auto& gates = run.stages[0].tests;
  ASSERT_EQ(gates[1].log.size(), 1u);
  EXPECT_EQ(gates[1].log[0], "actual 0.75, min 0.5, margin 0.25 (50.00% of the limit)");
  EXPECT_EQ(gates[0].log[0], "actual 1250 ms, max 1000 ms, margin -250 ms");
}

}  // namespace
}  // namespace aorta::report
