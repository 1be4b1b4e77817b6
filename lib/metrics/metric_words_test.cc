// One name per quantity (issue 45, 5): an iteration time is the whole profiled window,
// said with its number of steps, apart from a per-step time.
#include "metrics/metric_words.h"

#include <gtest/gtest.h>

#include "metrics/run_metrics.h"
#include "tests/rank_fixture.h"

namespace aorta::metrics {
namespace {

using aorta::testing::rank_metrics;

RunMetrics with_steps(uint64_t count, double mean_ms) {
  RunMetrics run = aggregate({rank_metrics(1, 12000, 9000, 4000), rank_metrics(0, 10000, 8000, 3000)}).value();
  StepSummary steps;
  steps.step_count = count;
  steps.mean_ms = mean_ms;
  run.steps = steps;
  return run;
}

TEST(MetricWords, TheIterationTimeSaysItIsTheWindowOfItsSteps) {
  EXPECT_EQ(iteration_time_label(4), "iteration time (the profiled window of 4 steps)");
  EXPECT_EQ(iteration_time_label(1), "iteration time (the profiled window of 1 step)");
  EXPECT_EQ(iteration_time_label(std::nullopt), "iteration time (the whole profiled window)");
  EXPECT_EQ(iteration_time_label(with_steps(5, 2.2)), "iteration time (the profiled window of 5 steps)");
}

// A user who calibrates max_avg_iteration_ms from one step's time is told what the
// figure is of: the window of N steps, and the per-step time beside it.
TEST(MetricWords, TheIterationGatesFailureNamesTheWindowAndThePerStepTime) {
  const auto checks = check_thresholds(with_steps(5, 2.2), {{"max_avg_iteration_ms", 3.0}});
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].message,
            "Average iteration time 11.00ms exceeds threshold 3ms (the profiled window of 5 steps; per-step time "
            "2.200 ms)");
  // Other gates keep their text alone.
  EXPECT_EQ(check_thresholds(with_steps(5, 2.2), {{"min_compute_ratio", 0.8}})[0].message,
            "Average compute ratio 77.50% below threshold 80.00%");
}

}  // namespace
}  // namespace aorta::metrics
