// The HTML report's rows (issue 32, 3): one per stage, as the guide's page has; every
// sub-test in its stage's panel, linking its own Full Log page, including a sub-test
// whose stage stopped before reaching it.
#include "report/html_writer.h"

#include <sstream>

#include <gtest/gtest.h>

#include "tests/rank_fixture.h"

namespace aorta::report {
namespace {

using job::Outcome;

StageResult stage(const std::string& name, Outcome outcome) {
  StageResult r;
  r.name = r.stage = name;
  r.outcome = outcome;
  return r;
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(HtmlReport, OneRowPerStageWithEverySubTestInItsPanel) {
  RunRecord run;
  run.suite = "aorta_single";
  run.run_id = "r1";
  // Collection reached one node and found the artifact missing (a body sub-test with no
  // test of its own); the second node's test was never reached (no body sub-test).
  StageResult collect = stage("test_collect_traces", Outcome::kFailed);
  collect.failures = {"No fresh torch_traces artifact"};
  const job::SubTest node_a{.kind = job::SubTestKind::kTraceCollection, .key = "host", .value = "node-a"};
  const job::SubTest artifact{.kind = job::SubTestKind::kTraceCollection, .key = "artifact", .value = "torch_traces",
                              .outcome = Outcome::kFailed, .message = "No fresh torch_traces artifact"};
  collect.subtests = {node_a, artifact};
  const job::SubTest node_b{.kind = job::SubTestKind::kTraceCollection, .key = "host", .value = "node-b",
                            .outcome = Outcome::kSkipped, .message = "test_collect_traces failed before this check"};
  // Record-only thresholds: a body sub-test that was recorded, not gated.
  StageResult thresholds = stage("test_validate_thresholds", Outcome::kSkipped);
  thresholds.skip_reason = "enforce_thresholds is false";
  const job::SubTest recorded{.key = "metric", .value = "max_avg_iteration_ms", .outcome = Outcome::kSkipped,
                              .message = "recorded only", .actual = 11.0, .limit = 20.0, .gate = metrics::ThresholdKind::kMax,
                              .record_only = true};
  thresholds.subtests = {recorded};
  collect.tests = {subtest_result("test_collect_traces", "test_collect_traces/node-a", "collect_traces", node_a),
                   subtest_result("test_collect_traces", "test_collect_traces/node-b", "collect_traces", node_b)};
  thresholds.tests = {
      subtest_result("test_validate_thresholds", "test_validate_thresholds/max_avg_iteration_ms", "thresholds", recorded)};
  run.stages = {collect, thresholds};
  std::ostringstream out;
  HtmlWriter().write(run, out);
  const std::string html = out.str();
  EXPECT_EQ(count(html, "results-table-row"), 2u);  // two stages, no row of a sub-test's own
  EXPECT_EQ(html.find("col-name\">aorta_single::test_collect_traces/"), std::string::npos);
  for (const auto* sub : {&run.stages[0].tests[0], &run.stages[0].tests[1], &run.stages[1].tests[0]}) {
    const std::string link = "<a href=\"" + stage_log_path(run, *sub) + "\">Full Log</a>";
    EXPECT_EQ(count(html, link), 1u) << sub->name;
    EXPECT_NE(html.find("<tr class=\"sub-" + std::string(job::outcome_name(sub->outcome)) + "\" id=\"" + sub->name + "\">"),
              std::string::npos)
        << sub->name;
  }
  // The panel, in the body's order then the unreached test: node-a, the artifact (no
  // page of its own), node-b.
  const size_t a = html.find("(host=node-a)"), art = html.find("(artifact=torch_traces)"), b = html.find("(host=node-b)");
  EXPECT_TRUE(a < art && art < b && b != std::string::npos) << html;
  // Counted as the panels show them: the unreached and the recorded sub-test are
  // skipped, never passed; the artifact's failure counts though it has no test.
  EXPECT_NE(html.find("<summary>3 subtests, 1 Failed, 1 Passed, 1 Skipped</summary>"), std::string::npos);
  EXPECT_NE(html.find("<td class=\"col-result\">Recorded</td>"), std::string::npos);
  EXPECT_NE(html.find("FAILED: 1 of 2 stages failed, 1 of 4 subtests failed"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"count-passed\">0 Passed</span><span class=\"count-failed\">1 Failed</span>"
                      "<span class=\"count-skipped\">1 Skipped</span><span class=\"cvs-subtests-count\">"
                      "4 subtests, 1 Failed, 1 Passed, 2 Skipped</span>"),
            std::string::npos);
}

// A sub-test test whose stage left no record (its test filtered out) has no panel to
// sit in: it keeps a row of its own, failed, with its Full Log, and fails the banner.
// Issue 46: a stage of 64 nodes' sub-tests says "64 nodes: 63 passed, 1 failed: node17"
// in its panel, lists the failed node, and folds the 63 passed in a <details> of their
// own (every sub-test's row and Full Log link still in the page).
TEST(HtmlReport, ManyNodesAreSummarisedInTheirStagesPanel) {
  RunRecord run;
  run.suite = "aorta_distributed";
  run.run_id = "r1";
  StageResult collect = stage("test_collect_traces", Outcome::kFailed);
  for (int n = 1; n <= 64; ++n) {
    const job::SubTest node{.kind = job::SubTestKind::kTraceCollection, .key = "host", .value = "node" + std::to_string(n),
                            .outcome = n == 17 ? Outcome::kFailed : Outcome::kPassed};
    collect.subtests.push_back(node);
    collect.tests.push_back(subtest_result("test_collect_traces", "test_collect_traces/" + node.value, "collect_traces", node));
  }
  // The artifact's check is no node's: listed, not counted among them.
  collect.subtests.push_back({.kind = job::SubTestKind::kTraceCollection, .key = "artifact", .value = "torch_traces",
                              .outcome = Outcome::kPassed});
  run.stages = {collect};
  std::ostringstream out;
  HtmlWriter().write(run, out);
  const std::string html = out.str();
  EXPECT_EQ(count(html, "results-table-row"), 1u);
  EXPECT_NE(html.find("<p class=\"node-summary\">64 nodes: 63 passed, 1 failed: node17</p>"), std::string::npos);
  const size_t folded = html.find("<details class=\"passed-nodes\"><summary>The 63 nodes that passed</summary>");
  ASSERT_NE(folded, std::string::npos);
  EXPECT_LT(html.find("id=\"test_collect_traces/node17\""), folded);
  EXPECT_GT(html.find("id=\"test_collect_traces/node1\""), folded);
  EXPECT_EQ(count(html.substr(folded), "<tr class=\"sub-passed\""), 63u);
  EXPECT_EQ(count(html, ">Full Log</a>"), 65u);  // the stage's and every node's
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(HtmlReport, ASubTestWithoutItsStageKeepsItsOwnRow) {
  RunRecord run;
  run.suite = "aorta_single";
  run.run_id = "r2";
  run.stages = {stage("test_parse_results", Outcome::kPassed)};
  const job::SubTest unrun{.key = "metric", .value = "max_avg_iteration_ms", .outcome = Outcome::kFailed,
                           .message = "test_validate_thresholds did not run, so this check was not evaluated"};
  run.stages.push_back(subtest_result("test_validate_thresholds", "test_validate_thresholds/max_avg_iteration_ms", "thresholds", unrun));
  std::ostringstream out;
  HtmlWriter().write(run, out);
  const std::string html = out.str();
  EXPECT_EQ(count(html, "results-table-row"), 2u);
  EXPECT_NE(html.find("<tbody id=\"test_validate_thresholds/max_avg_iteration_ms\" class=\"failed results-table-row\">"),
            std::string::npos);
  EXPECT_NE(html.find("<a href=\"" + stage_log_path(run, run.stages[1]) + "\">Full Log</a>"), std::string::npos);
  EXPECT_NE(html.find("so this check was not evaluated</div>"), std::string::npos);
  EXPECT_NE(html.find("FAILED: 0 of 1 stages failed, 1 of 1 subtests failed"), std::string::npos);
}

// Issue 45, 7: every gate cell in its metric row's unit: times in ms, fractions as %,
// a ratio of like values as a multiple, bandwidth in GB/s; a limit as configured.
TEST(HtmlReport, GateCellsCarryTheirMetricsUnit) {
  using metrics::MetricUnit;
  RunRecord run;
  run.suite = "aorta_single";
  StageResult gates = stage("test_validate_thresholds", Outcome::kFailed);
  auto gate = [](const char* key, double actual, double limit, metrics::ThresholdKind kind, MetricUnit unit) {
    return job::SubTest{.key = "metric", .value = key, .outcome = Outcome::kPassed, .actual = actual, .limit = limit,
                        .gate = kind, .unit = unit};
  };
  gates.subtests = {gate("max_avg_iteration_ms", 92.694, 1, metrics::ThresholdKind::kMax, MetricUnit::kMs),
                    gate("min_overlap_ratio", 0.715701, 0.99, metrics::ThresholdKind::kMin, MetricUnit::kFraction),
                    gate("max_rank_compute_slowdown_ratio", 1.3, 1.1, metrics::ThresholdKind::kMax, MetricUnit::kRatio),
                    gate("min_allreduce_busbw_gbps", 5.35192, 40, metrics::ThresholdKind::kMin, MetricUnit::kGbps)};
  run.stages = {gates};
  std::ostringstream out;
  HtmlWriter().write(run, out);
  const std::string html = out.str();
  for (const char* cells : {"<td>92.694 ms</td><td>&le; 1 ms</td>", "<td>71.57%</td><td>&ge; 99%</td>",
                            "<td>1.3000x</td><td>&le; 1.1x</td>", "<td>5.35 GB/s</td><td>&ge; 40 GB/s</td>"})
    EXPECT_NE(html.find(cells), std::string::npos) << cells << "\n" << html;
}

// Issue 45, 7: the Metrics table marks the metric whose gate failed, in words beside
// the colour (a per-rank gate with its rank); a failed gate's metric the table does not
// list gets its own marked row.
TEST(HtmlReport, MetricsTableMarksTheFailedGatesMetric) {
  RunRecord run;
  run.suite = "aorta_single";
  StageResult gates = stage("test_validate_thresholds", Outcome::kFailed);
  gates.subtests = {job::SubTest{.key = "metric", .value = "max_avg_iteration_ms", .outcome = Outcome::kFailed,
                                 .actual = 11.0, .limit = 1.0, .gate = metrics::ThresholdKind::kMax,
                                 .unit = metrics::MetricUnit::kMs},
                    job::SubTest{.key = "metric", .value = "max_rank_compute_slowdown_ratio", .outcome = Outcome::kFailed,
                                 .actual = 1.3, .limit = 1.1, .gate = metrics::ThresholdKind::kMax,
                                 .unit = metrics::MetricUnit::kRatio, .subject = metrics::GateSubject{"node3", 3, 1}},
                    job::SubTest{.key = "metric", .value = "min_compute_ratio", .outcome = Outcome::kPassed,
                                 .actual = 0.775, .limit = 0.5, .gate = metrics::ThresholdKind::kMin,
                                 .unit = metrics::MetricUnit::kFraction}};
  run.stages = {gates};
  const auto result =
      metrics::aggregate({testing::rank_metrics(0, 10000, 8000, 3000), testing::rank_metrics(1, 12000, 9000, 4000)});
  ASSERT_TRUE(result);
  std::ostringstream out;
  HtmlWriter({.result = &*result}).write(run, out);
  const std::string html = out.str();
  EXPECT_NE(html.find("<tr class=\"gate-failed\"><th>avg iteration time (the whole profiled window)</th><td>11.000 ms "
                      "(min 10.000, max 12.000) <strong class=\"gate-mark\">&#x2717; fails max_avg_iteration_ms "
                      "(&le; 1 ms)</strong></td></tr>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr class=\"gate-failed\"><th>rank compute slowdown</th><td>1.3000x <strong class=\"gate-mark\">"
                      "&#x2717; fails max_rank_compute_slowdown_ratio (&le; 1.1x) on node3 rank 3 (GPU 1)</strong>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<tr><th>avg compute ratio</th><td>77.50%</td></tr>"), std::string::npos);  // passed: unmarked
  EXPECT_EQ(count(html, "class=\"gate-mark\""), 2u);
}

}  // namespace
}  // namespace aorta::report
