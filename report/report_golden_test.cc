// Golden files: every writer's exact output for one fixed run (fixed run id,
// timestamp, host, version and commit; a deck generation time), compared byte for
// byte with report/testdata/. A deliberate change of a report's shape is made by
// regenerating them: AORTA_UPDATE_GOLDEN=1 build/aorta_unit_tests --gtest_filter='ReportGolden.*'
// rewrites the files, and the diff is then reviewed and committed with the change.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <tuple>

#include <gtest/gtest.h>

#include "common/shell_quote.h"
#include "report/html_writer.h"
#include "report/junit_writer.h"
#include "report/run_deck.h"
#include "report/text_log_writer.h"
#include "suites/suites.h"
#include "tests/diagnosis_fixture.h"
#include "tests/rank_fixture.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::report {
namespace {

using job::Outcome;

const std::string kData = std::string(AORTA_SOURCE_DIR) + "/report/testdata/";

StageResult stage(std::string name, Outcome outcome, double seconds, std::string label) {
  StageResult r;
  r.name = r.stage = std::move(name);
  r.outcome = outcome;
  r.seconds = seconds;
  r.label = std::move(label);
  return r;
}

StageResult subtest_case(const StageResult& parent, const job::SubTest& t) {
  StageResult r = subtest_result(parent.stage, parent.stage + "/" + job::test_name_part(t.value), parent.label, t);
  r.seconds = 0.001;
  return r;
}

// A run with every kind of testcase: passed, failed (with a note holding text XML
// must escape and a control character it cannot hold), skipped, and passed and
// failed sub-tests of two kinds.
RunRecord fixed_run() {
  RunRecord run;
  run.suite = "aorta_single";
  run.run_id = "0123456789abcdef0123456789abcdef";
  run.timestamp = "2026-12-01T10:00:00";
  run.hostname = "head-1";
  run.version = "0.1.0";
  run.commit = "abcdef012345";
  run.seconds = 21.25;
  StageResult launch = stage("test_launch_container", Outcome::kPassed, 0.125, "container_launch");
  launch.log = {"runtime none: running on the host"};
  StageResult benchmark = stage("test_run_benchmark", Outcome::kPassed, 12.5, "benchmark");
  benchmark.log = {"torchrun <2 ranks> & \"gloo\"", "colour \x1b[0m reset"};
  StageResult collect = stage("test_collect_traces", Outcome::kPassed, 0.5, "collect_traces");
  job::SubTest host;
  host.kind = job::SubTestKind::kTraceCollection;
  host.key = "host";
  host.value = "localhost";
  collect.subtests.push_back(host);
  StageResult analyze = stage("test_analyze", Outcome::kSkipped, 0, "analysis");
  analyze.skip_reason = "Optional TraceLens/GEMM analysis is disabled";
  StageResult gate = stage("test_validate_thresholds", Outcome::kFailed, 0.25, "thresholds");
  const std::string too_slow = "Average iteration time 11.00ms exceeds threshold 1ms";
  gate.failures = {too_slow};
  job::SubTest slow{job::SubTestKind::kThreshold, "metric", "max_avg_iteration_ms", Outcome::kFailed, too_slow, 11.0,
                    1.0, metrics::ThresholdKind::kMax, metrics::MetricUnit::kMs};
  job::SubTest compute{job::SubTestKind::kThreshold, "metric", "min_compute_ratio", Outcome::kPassed, "", 0.775, 0.01,
                       metrics::ThresholdKind::kMin, metrics::MetricUnit::kFraction};
  gate.subtests = {slow, compute};
  collect.tests = {subtest_case(collect, collect.subtests[0])};
  gate.tests = {subtest_case(gate, slow), subtest_case(gate, compute)};
  run.stages = {launch, benchmark, collect, analyze, gate};
  return run;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The text equals testdata/<name>, or (AORTA_UPDATE_GOLDEN=1) becomes it.
void expect_golden(const std::string& name, const std::string& text) {
  const std::string path = kData + name;
  const char* update = std::getenv("AORTA_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << text;
    return;
  }
  EXPECT_EQ(read(path), text) << "differs from " << path << "; if the change is intended, regenerate with "
                              << "AORTA_UPDATE_GOLDEN=1 and review the diff";
}

std::string render(const ReportWriter& writer, const RunRecord& run) {
  std::ostringstream out;
  writer.write(run, out);
  return out.str();
}

int xmllint(const std::string& xsd, const std::string& file) {
  return std::system(("xmllint --noout --schema " + shell_quote(kData + "../" + xsd) + " " + shell_quote(kData + file) +
                      " 2>&1").c_str());
}

TEST(ReportGolden, JunitDefaultFamily) {
  expect_golden("junit_legacy.xml", render(JunitWriter(), fixed_run()));
  EXPECT_EQ(xmllint("junit.xsd", "junit_legacy.xml"), 0);
}

TEST(ReportGolden, JunitXunit2FamilyWithPrefix) {
  expect_golden("junit_xunit2.xml", render(JunitWriter({"mi300x.nightly", JunitFamily::kXunit2}), fixed_run()));
  EXPECT_EQ(xmllint("junit_xunit2.xsd", "junit_xunit2.xml"), 0);
  // The legacy file carries what the strict schema forbids, so the check has teeth.
  EXPECT_NE(xmllint("junit_xunit2.xsd", "junit_legacy.xml"), 0);
}

TEST(ReportGolden, JunitCvsShape) {
  expect_golden("junit_cvs.xml", render(JunitWriter({"", JunitFamily::kLegacy, JunitShape::kCvs}), fixed_run()));
}

TEST(ReportGolden, TextLog) { expect_golden("text_log.log", render(TextLogWriter(), fixed_run())); }

TEST(ReportGolden, HtmlReportAndFullLogPage) {
  RunRecord run = fixed_run();
  // Ranks of 10 and 12 ms: avg 11.000 ms (min 10.000, max 12.000); compute 0.8 and 0.75, avg 0.7750.
  auto result = metrics::aggregate({testing::rank_metrics(0, 10000, 8000, 3000), testing::rank_metrics(1, 12000, 9000, 4000)});
  ASSERT_TRUE(result.ok());
  HtmlExtras extras{&*result, {{"aorta_suite", "0.1.0 (abc)"}, {"config", "/cfg/<x>.json"}}, "../out/aorta_benchmark_report.json",
                    "report.html", "aorta_single_html/aorta_run_deck.html",
                    {"aorta_single_html/node_logs/benchmark-node-0.log"}};
  expect_golden("report.html", render(HtmlWriter(extras), run));
  std::ostringstream page;
  write_stage_log_page(run, run.stages[4], page, "report.html");
  expect_golden("stage_log.html", page.str());
}

TEST(ReportGolden, RunDeckJsonAndHtml) {
  RunRecord run = fixed_run();
  config::Variant variant;
  variant.model_id = "profile_overlap_2gpu";
  variant.thresholds = {{"max_avg_iteration_ms", 1.0}, {"min_compute_ratio", 0.01}, {"min_overlap_ratio", std::nullopt}};
  // Diagnoses: two ranks, too few for compute bars; all-reduce at 4194304 B 20 and 30
  // GB/s, median 25, bars 200 and 300 px with the median at 250.
  std::vector<metrics::RankMetrics> ranks{testing::rank_metrics(0, 10000, 8000, 3000),
                                          testing::rank_metrics(1, 12000, 9000, 4000)};
  for (int i : {0, 1})
    ranks[i].diagnosis = testing::diagnosed_rank(i, {{"gemm", 4, 4000.0 + 400 * i, 0.4}},
                                                 {testing::collective("allreduce", 4194304, 20.0 + 10 * i)})
                             .diagnosis;
  auto result = metrics::aggregate(ranks);
  ASSERT_TRUE(result.ok());
  DeckInput in{&run, &variant, 1, 2, 112, &*result, "../aorta_single.html", "../aorta_single.log", "", "local_cpu_single.json",
               "2026-12-01T10:00:30"};
  in.lifecycle = suites::lifecycle();
  auto deck = run_deck_json(in);
  expect_golden("run_deck.json", result_json::json_text(deck));
  std::ostringstream html;
  write_run_deck_html(deck, html);
  expect_golden("run_deck.html", html.str());
}

}  // namespace
}  // namespace aorta::report
