// Run Deck states and values (reference §4.6) on the original's fixture: rank 1
// 12000/9000/4000 us, rank 0 10000/8000/3000 us (total/compute/comm).
#include "report/run_deck.h"

#include <sstream>
#include <tuple>

#include <gtest/gtest.h>

#include "tests/rank_fixture.h"

namespace aorta::report {
namespace {

using aorta::testing::rank_metrics;

struct Fixture {
  RunRecord run;
  config::Variant variant;
  metrics::RunMetrics result = metrics::aggregate({rank_metrics(1, 12000, 9000, 4000), rank_metrics(0, 10000, 8000, 3000)}).value();
  Fixture() {
    run.suite = "aorta_single";
    for (auto [name, seconds, label] : {std::tuple{"test_run_benchmark", 1.5, "benchmark"},
                                        std::tuple{"test_validate_thresholds", 0.1, "thresholds"}}) {
      StageResult stage;
      stage.name = stage.stage = name;
      stage.seconds = seconds;
      stage.label = label;
      run.stages.push_back(stage);
    }
    variant.model_id = "test";
    variant.thresholds = {{"max_avg_iteration_ms", 20.0}, {"min_compute_ratio", 0.5}, {"min_overlap_ratio", std::nullopt}};
  }
  DeckInput input(bool with_result = true) {
    return {&run, &variant, 1, 2, 112, with_result ? &result : nullptr, "../r.html", "../r.log", "", "v.json"};
  }
};

TEST(RunDeck, EnforcedPassingRun) {
  Fixture f;
  auto deck = run_deck_json(f.input());
  EXPECT_EQ(deck["overall_status"], "pass");
  EXPECT_EQ(deck["gate_matrix"]["iteration_time"]["status"], "pass");
  EXPECT_EQ(deck["gate_matrix"]["overlap_ratio"]["status"], "na");  // null threshold
  EXPECT_EQ(deck["gate_matrix"]["rank_balance"]["status"], "na");   // not configured
  EXPECT_DOUBLE_EQ(deck["cells"][0]["metrics"]["training.avg_iteration_time_ms"].get<double>(), 11.0);
  EXPECT_DOUBLE_EQ(deck["cells"][0]["metrics"]["training.avg_compute_time_ms"].get<double>(), 8.5);
  EXPECT_DOUBLE_EQ(deck["cells"][0]["metrics"]["training.avg_comm_time_ms"].get<double>(), 3.5);
  const auto& series = deck["metric_charts"]["series"];
  ASSERT_EQ(series.size(), 6u);
  EXPECT_EQ(series[0]["points"].dump(), "[[0,10.0],[1,12.0]]");
  EXPECT_EQ(series[3]["points"].dump(), "[[0,80.0],[1,75.0]]");
  EXPECT_EQ(deck["lifecycle"].dump(), R"({"benchmark":1.5,"thresholds":0.1})");
  std::string all = deck.dump();
  EXPECT_EQ(all.find("exposed"), std::string::npos);
  std::ostringstream html;
  write_run_deck_html(deck, html);
  for (const char* needle : {"Aorta Run Deck", "Threshold gates", "Time by rank", "Share of iteration by rank",
                             "max_avg_iteration_ms", "Metrics source", "PASS · 11.00 ms (limit ≤ 20 ms)"})
    EXPECT_NE(html.str().find(needle), std::string::npos) << needle;
}

TEST(RunDeck, StatesFollowTheGate) {
  Fixture f;
  f.variant.thresholds[0].value = 1;  // 11 ms > 1 ms
  EXPECT_EQ(run_deck_json(f.input())["overall_status"], "fail");
  f.run.stages[1].outcome = job::Outcome::kSkipped;  // an earlier failure: gate not run
  EXPECT_EQ(threshold_state(f.input()), "not evaluated");
  EXPECT_EQ(run_deck_json(f.input())["overall_status"], "record");
  f.variant.enforce_thresholds = false;
  EXPECT_EQ(threshold_state(f.input()), "record-only");
  EXPECT_EQ(run_deck_json(f.input())["gate_matrix"]["iteration_time"]["status"], "record");
  EXPECT_EQ(run_deck_json(f.input(false))["overall_status"], "na");
  EXPECT_TRUE(run_deck_json(f.input(false))["cells"].empty());
}

// A configured step gate on traces without ProfilerStep annotations (the fixture's
// ranks have none) cannot be measured: it fails, with the reason, not "na".
TEST(RunDeck, AStepGateWithoutStepsFails) {
  Fixture f;
  f.variant.thresholds.push_back({"max_avg_step_time_ms", 500.0});
  auto deck = run_deck_json(f.input());
  EXPECT_EQ(deck["gate_matrix"]["step_time"]["status"], "fail");
  EXPECT_EQ(deck["gate_matrix"]["step_time"]["actual"], nullptr);
  EXPECT_EQ(deck["gate_matrix"]["step_time"]["reason"],
            "Average step time not available: the traces have no ProfilerStep annotations");
  EXPECT_EQ(deck["gate_matrix"]["step_balance"]["status"], "na");  // not configured
  EXPECT_EQ(deck["overall_status"], "fail");
}

// Gates print in the unit they are written in: the iteration gate once read
// `≤ 6e+04` in the HTML table. The fixture's average is 11 ms.
TEST(RunDeck, GateTextInTheGatesUnit) {
  Fixture f;
  f.variant.thresholds = {{"max_avg_iteration_ms", 60000.0}, {"min_compute_ratio", 0.5}, {"max_time_variance_ratio", 0.125}};
  auto deck = run_deck_json(f.input());
  std::ostringstream html;
  write_run_deck_html(deck, html);
  const std::string page = html.str();
  for (const char* needle : {"<td>≤ 60000 ms</td>", "<td>≥ 0.5</td>", "<td>≤ 0.125</td>",
                             "PASS · 11.00 ms (limit ≤ 60000 ms)", "PASS · 0.7750 (limit ≥ 0.5)"})
    EXPECT_NE(page.find(needle), std::string::npos) << needle;
  EXPECT_EQ(page.find("6e+04"), std::string::npos);
  // sqrt(2e6) / 11000 = 0.1286 > 0.125: the variance gate fails.
  EXPECT_NE(page.find("FAIL · 0.1286 (limit ≤ 0.125)"), std::string::npos);
  f.variant.thresholds = {{"max_avg_iteration_ms", 835.25}};
  std::ostringstream fractional;
  write_run_deck_html(run_deck_json(f.input()), fractional);
  EXPECT_NE(fractional.str().find("<td>≤ 835.25 ms</td>"), std::string::npos);
}

// A zero limit fails with its unit (audit D18); record-only and not-evaluated runs
// show their states and n/a without a result (audit D19).
TEST(RunDeck, RunCardRowsForEveryState) {
  Fixture f;
  f.variant.thresholds = {{"max_avg_iteration_ms", 0.0}};
  auto card = [&](bool with_result = true) {
    std::string rows;
    const auto deck = run_deck_json(f.input(with_result));
    for (const auto& r : deck["run_card_display"])
      if (r[0] == "max_avg_iteration_ms") rows += r[1].get<std::string>();
    return rows;
  };
  EXPECT_EQ(card(), "FAIL · 11.00 ms (limit ≤ 0 ms)");
  f.variant.enforce_thresholds = false;
  EXPECT_EQ(card(), "RECORD · 11.00 ms (limit ≤ 0 ms)");
  EXPECT_EQ(card(false), "RECORD · n/a (limit ≤ 0 ms)");
  f.variant.enforce_thresholds = true;
  f.run.stages[1].outcome = job::Outcome::kSkipped;
  EXPECT_EQ(card(), "NOT EVALUATED · 11.00 ms (limit ≤ 0 ms)");
}

TEST(RunDeck, OneRankHasNoCharts) {
  Fixture f;
  f.result = metrics::aggregate({rank_metrics(0, 10000, 8000, 3000)}).value();
  EXPECT_TRUE(run_deck_json(f.input())["metric_charts"]["series"].empty());
}

}  // namespace
}  // namespace aorta::report
