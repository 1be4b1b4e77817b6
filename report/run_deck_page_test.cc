// Issue 31, 9: how the Run Deck's page reads: its verdict, its timeline, its numbers.
#include <sstream>

#include <gtest/gtest.h>

#include "report/run_deck.h"
#include "tests/deck_fixture.h"

namespace aorta::report {
namespace {

using Fixture = aorta::testing::DeckFixture;

std::string page(const nlohmann::ordered_json& deck) {
  std::ostringstream html;
  write_run_deck_html(deck, html);
  return html.str();
}

// The verdict leads the page in large words, the timeline names the stages
// that did not run and why, and no number or name breaks mid-token (0.000146 / 4).
TEST(RunDeckPage, VerdictFirstSkippedStagesNamedNumbersWhole) {
  Fixture f;
  StageResult skipped;
  skipped.name = skipped.stage = "test_analyze";
  skipped.label = "analysis";
  skipped.outcome = job::Outcome::kSkipped;
  skipped.skip_reason = "Optional TraceLens/GEMM analysis is disabled";
  f.run.stages.insert(f.run.stages.begin() + 1, skipped);
  auto deck = run_deck_json(f.input());
  EXPECT_EQ(deck["lifecycle"].dump(), R"({"benchmark":1.5,"thresholds":0.1})");  // CVS's shape, unchanged
  EXPECT_EQ(deck["lifecycle_skipped"].dump(), R"({"analysis":"Optional TraceLens/GEMM analysis is disabled"})");
  const std::string html = page(deck);
  const size_t verdict = html.find("<span id=\"overall-status\" class=\"verdict pass\">pass</span>");
  ASSERT_NE(verdict, std::string::npos) << html.substr(0, 600);
  EXPECT_LT(verdict, html.find("id=\"run-card\""));
  EXPECT_NE(html.find("<li>analysis: skipped (Optional TraceLens/GEMM analysis is disabled)</li>"), std::string::npos);
  const std::string css = run_deck_stylesheet();
  EXPECT_EQ(css.find("anywhere"), std::string::npos) << css;
  EXPECT_NE(css.find("td.num{white-space:nowrap}"), std::string::npos) << css;
  // Every number of the results table in a cell that does not wrap.
  const size_t table = html.find("<section id=\"results\">");
  ASSERT_NE(table, std::string::npos);
  EXPECT_NE(html.find("<td class=\"num\">11</td>", table), std::string::npos) << html.substr(table, 1500);
}

// Issue 45, 7: the gates and the Diagnosis come right after the verdict, before the
// run card and the charts; at 800 px the gates table fits its card: names break after
// '_', the reason column is the wrapping one.
TEST(RunDeckPage, GatesAndDiagnosisBeforeTheChartsAndTheReasonKeepsItsRoom) {
  Fixture f;
  f.variant.thresholds = {{"max_avg_iteration_ms", 1.0}};
  const std::string html = page(run_deck_json(f.input()));
  const size_t verdict = html.find("id=\"overall-status\""), gates = html.find("<section id=\"gates\">"),
               diagnosis = html.find("<section id=\"diagnosis-section\">"), card = html.find("<section id=\"run-card\">"),
               charts = html.find("<section id=\"per-rank\">");
  ASSERT_NE(charts, std::string::npos);
  EXPECT_TRUE(verdict < gates && gates < diagnosis && diagnosis < card && card < charts) << html;
  EXPECT_NE(html.find("<table class=\"gates\">"), std::string::npos);
  EXPECT_NE(html.find("<td>iteration_<wbr>time</td><td>training.<wbr>avg_<wbr>iteration_<wbr>time_<wbr>ms</td>"),
            std::string::npos)
      << html;
  // The gate's text, and (issue 45, 5) what its iteration time is: the whole profiled window.
  EXPECT_NE(html.find("<td class=\"reason\">Average iteration time 11.00ms exceeds threshold 1ms (the whole profiled "
                      "window)</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(run_deck_stylesheet().find("table.gates{width:100%}td.reason{min-width:12em;overflow-wrap:break-word}"),
            std::string::npos);
}

}  // namespace
}  // namespace aorta::report
