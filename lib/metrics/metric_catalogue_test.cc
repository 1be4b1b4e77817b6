// The metric catalogue against the JSON report's schema (every performance number
// is a row, every JSON row is in the schema, their units agree) and the order each
// report lists its rows in. Values on the original's two-rank fixture: rank 1
// 12000/9000/4000 us, rank 0 10000/8000/3000 us (total/compute/comm).
#include "metrics/metric_catalogue.h"

#include <fstream>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "metrics/run_metrics.h"
#include "tests/rank_fixture.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::metrics {
namespace {

using aorta::testing::rank_metrics;

RunMetrics fixture_run() {
  return aggregate({rank_metrics(1, 12000, 9000, 4000), rank_metrics(0, 10000, 8000, 3000)}).value();
}

// The schema's performance.properties.
nlohmann::json performance_schema() {
  std::ifstream in(std::string(AORTA_SOURCE_DIR) + "/report/benchmark_report.schema.json");
  return nlohmann::json::parse(in)["properties"]["performance"]["properties"];
}

bool has_type(const nlohmann::json& property, const std::string& type) {
  const auto& t = property["type"];
  return t.is_string() ? t == type : std::find(t.begin(), t.end(), type) != t.end();
}

std::vector<std::string> keys(MetricView view) {
  std::vector<std::string> out;
  for (const MetricSpec* spec : metrics_in(view)) out.emplace_back(spec->key);
  return out;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

TEST(MetricCatalogue, JsonRowsAreTheSchemasPerformanceNumbers) {
  const nlohmann::json schema = performance_schema();
  std::set<std::string> numbers_in_schema, json_rows;
  for (const auto& [key, property] : schema.items())
    if (has_type(property, "number") || has_type(property, "integer")) numbers_in_schema.insert(key);
  for (const MetricSpec* spec : metrics_in(kInJson)) json_rows.insert(spec->key);
  EXPECT_EQ(json_rows, numbers_in_schema);
  for (const MetricSpec* spec : metrics_in(kInJson)) {
    const auto& property = schema[spec->key];
    const std::string key = spec->key;
    // A count is an integer, and only a count; a share capped at 1 is a fraction.
    EXPECT_EQ(has_type(property, "integer"), spec->unit == MetricUnit::kCount) << key;
    if (property.value("maximum", 0.0) == 1.0) {
      EXPECT_EQ(spec->unit, MetricUnit::kFraction) << key;
    }
    // The key names its unit.
    EXPECT_EQ(ends_with(key, "_ms"), spec->unit == MetricUnit::kMs) << key;
    EXPECT_EQ(ends_with(key, "_us"), spec->unit == MetricUnit::kUs) << key;
    EXPECT_EQ(ends_with(key, "_gb"), spec->unit == MetricUnit::kGb) << key;
  }
}

// The deck's average compute and comm time and the diagnosis and telemetry gates' figures are the
// only rows the JSON report lacks.
TEST(MetricCatalogue, RowsOutsideTheJsonReport) {
  std::set<std::string> outside;
  for (const auto& spec : metric_catalogue())
    if (!(spec.shown_in & kInJson)) outside.insert(spec.key);
  EXPECT_EQ(outside, (std::set<std::string>{"avg_compute_time_us", "avg_comm_time_us", "max_rank_compute_slowdown_ratio",
                                            "min_allreduce_busbw_gbps", "min_allgather_busbw_gbps",
                                            "min_reduce_scatter_busbw_gbps", "max_gpu_uncorrectable_errors",
                                            "max_gpu_throttled_share", "max_pcie_links_downgraded"}));
}

TEST(MetricCatalogue, EveryRowIsFoundAndCompleteForItsViews) {
  for (const auto& spec : metric_catalogue()) {
    EXPECT_EQ(find_metric(spec.key), &spec);
    EXPECT_NE(spec.label, nullptr);
    if (spec.shown_in & (kInSummary | kInTable)) {
      EXPECT_NE(spec.short_label, nullptr) << spec.key;
    }
    EXPECT_EQ(spec.deck_header != nullptr, (spec.shown_in & kInDeck) != 0) << spec.key;
    if (spec.detail_of) {
      EXPECT_NE(find_metric(spec.detail_of), nullptr) << spec.key;
    }
  }
  EXPECT_EQ(find_metric("avg_iteration_time_us"), nullptr);
}

// A gate holds its metric on the side that is better: a max gate on a metric where lower
// is better, a min gate where higher is (a max gate on overlap would fail the better runs).
TEST(MetricCatalogue, EveryGateHoldsItsMetricOnTheBetterSide) {
  int gated = 0;
  for (const auto& spec : metric_catalogue()) {
    if (!spec.gate) continue;
    ++gated;
    EXPECT_EQ(spec.gate->kind, spec.better == Better::kLower ? ThresholdKind::kMax : ThresholdKind::kMin) << spec.key;
    EXPECT_NE(spec.better, Better::kNeither) << spec.key;
    EXPECT_NE(spec.gate->message, nullptr) << spec.key;
    EXPECT_LE(spec.gate->min_limit, spec.gate->max_limit) << spec.key;
  }
  EXPECT_GT(gated, 0);
}

// The lists people read put exposed comm after comm; the JSON keeps the schema's order.
TEST(MetricCatalogue, EachViewsOrder) {
  EXPECT_EQ(keys(kInCompare),
            (std::vector<std::string>{"avg_iteration_time_ms", "time_variance_ratio", "avg_compute_ratio", "avg_comm_ratio",
                                      "avg_exposed_comm_ratio", "avg_overlap_ratio", "avg_step_time_ms",
                                      "median_step_time_ms", "p95_step_time_ms", "max_step_time_ms", "step_time_cv"}));
  EXPECT_EQ(keys(kInHtml), (std::vector<std::string>{"time_variance_ratio", "avg_compute_ratio", "avg_comm_ratio",
                                                      "avg_exposed_comm_ratio", "avg_overlap_ratio"}));
  const auto json = keys(kInJson);
  EXPECT_LT(std::find(json.begin(), json.end(), "avg_overlap_ratio"),
            std::find(json.begin(), json.end(), "avg_exposed_comm_ratio"));
}

TEST(MetricCatalogue, DeckShowsTimesInMs) {
  const RunMetrics run = fixture_run();
  const MetricSpec& std_time = *find_metric("std_iteration_time_us");
  EXPECT_EQ(deck_key(std_time), "std_iteration_time_ms");
  EXPECT_DOUBLE_EQ(*deck_value(std_time, run), run.std_iteration_time_us / 1000);
  EXPECT_EQ(deck_key(*find_metric("avg_compute_ratio")), "avg_compute_ratio");
  EXPECT_DOUBLE_EQ(*deck_value(*find_metric("avg_compute_time_us"), run), 8.5);
}

TEST(MetricCatalogue, ListsUseOneRatioStyle) {
  const RunMetrics run = fixture_run();
  EXPECT_EQ(short_list(run, kInTable, RatioStyle::kPercent), "compute 77.50%, comm (CVS) 31.67%, overlap 29.17%");
  EXPECT_EQ(short_list(run, kInSummary, RatioStyle::kFraction),
            "compute 0.7750, comm (CVS) 0.3167, exposed comm -, overlap 0.2917");
  EXPECT_EQ(format_metric(*find_metric("avg_iteration_time_ms"), run, RatioStyle::kPercent), "11.000 ms");
  EXPECT_EQ(format_metric(*find_metric("ranks"), run, RatioStyle::kPercent), "2");
  EXPECT_EQ(format_metric(*find_metric("step_count"), run, RatioStyle::kPercent), "-");  // no steps
}

}  // namespace
}  // namespace aorta::metrics
