// The Run Deck's per-step heatmap (issue 46, 3): one chart for every rank and step, at 4
// ranks and at 512 (a deck of at most 2 MB and a few dozen charts, the worst ranks named).
#include "report/run_deck_heatmap.h"

#include <sstream>

#include <gtest/gtest.h>

#include "report/run_deck.h"
#include "tests/deck_fixture.h"
#include "tests/diagnosis_fixture.h"

namespace aorta::report {
namespace {

using aorta::testing::ranks_with_steps;

std::string deck_page(const nlohmann::ordered_json& deck) {
  std::ostringstream html;
  write_run_deck_html(deck, html);
  return html.str();
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// 4 ranks of steps 10, 11, 12 ms, rank 2 twice that: the median step is 11.5 ms, rank 2
// the one slow rank, labelled with its node and GPU; the step gate in the caption.
TEST(StepHeatmap, OneChartForEveryRankAndStep) {
  aorta::testing::DeckFixture f;
  f.result = ranks_with_steps(4, 3, 10, 2);
  f.variant.thresholds = {{"max_avg_step_time_ms", 150.0}};
  const auto deck = run_deck_json(f.input());
  const auto& h = deck["metric_charts"]["step_heatmap"];
  EXPECT_EQ(h["median_ms"], 11.5);
  EXPECT_EQ(h["ranks_per_row"], 1);
  EXPECT_EQ(h["columns"], nlohmann::ordered_json({1, 2, 3}));
  ASSERT_EQ(h["rows"].size(), 4u);
  EXPECT_EQ(h["rows"][2]["label"], "rank 2");
  EXPECT_EQ(h["rows"][2]["cells"], nlohmann::ordered_json({20.0, 22.0, 24.0}));
  ASSERT_EQ(h["labelled"].size(), 1u);
  EXPECT_EQ(h["labelled"][0]["label"], "node0 rank 2 (GPU 2)");
  EXPECT_EQ(h["caption"], "Rows: ranks; columns: steps; colour: the step time against the median step, 11.50 ms.");

  const std::string html = deck_page(deck);
  EXPECT_EQ(count(html, "<svg"), 1 + 3 + 1u);  // the timeline, the per-rank charts, the heatmap
  EXPECT_EQ(html.find("Step time, rank"), std::string::npos);
  // Rows of 18 px, columns of 360 / 3 px; 10 ms is under 0.9 x the median, 20 ms over 1.5 x.
  for (const char* cell : {R"(<rect x="110.00" y="10" width="120.00" height="18" fill="#2166ac"/>)",
                           R"(<rect x="230.00" y="10" width="120.00" height="18" fill="#92c5de"/>)",
                           R"(<rect x="350.00" y="10" width="120.00" height="18" fill="#e6e6e6"/>)",
                           R"(<rect x="110.00" y="46" width="120.00" height="18" fill="#54278f"/>)"})
    EXPECT_NE(html.find(cell), std::string::npos) << cell;
  EXPECT_NE(html.find(">node0 rank 2 (GPU 2): slowest #1, mean 22.00 ms</text>"), std::string::npos);
  EXPECT_NE(html.find(">10.35-11.50 ms</text>"), std::string::npos);  // the legend in ms
  EXPECT_NE(html.find("11.50 ms. Gate: max 150 ms avg step time.</p>"), std::string::npos);
}

// No steps: no heatmap and one line; no metrics: no section.
TEST(StepHeatmap, NoneWithoutSteps) {
  aorta::testing::DeckFixture f;
  const auto none = run_deck_json(f.input());
  EXPECT_TRUE(none["metric_charts"]["step_heatmap"].is_null());
  EXPECT_EQ(none["metric_charts"]["step_note"], "No per-step charts: the traces have no ProfilerStep annotations.");
  EXPECT_NE(deck_page(none).find("<p>No per-step charts: the traces have no ProfilerStep annotations.</p>"),
            std::string::npos);
  EXPECT_EQ(deck_page(none).find("step-heatmap"), std::string::npos);
  EXPECT_EQ(deck_page(run_deck_json(f.input(false))).find("per-step"), std::string::npos);
}

// Issue 29: a ProfilerStep flood made a 196 MB Run Deck. The heatmap shows a rank's
// first 1000 steps in at most kMaxHeatmapColumns columns, and the note names the ranks
// that have more.
TEST(StepHeatmap, StepsPastTheCapBinnedWithANote) {
  aorta::testing::DeckFixture f;
  f.result = ranks_with_steps(2, 1001, 10, -1);
  const auto deck = run_deck_json(f.input());
  const auto& h = deck["metric_charts"]["step_heatmap"];
  EXPECT_EQ(h["steps_per_column"], 17);  // 1000 / 60, rounded up
  EXPECT_EQ(h["columns"].size(), 59u);
  EXPECT_EQ(h["columns"][58], 987);
  EXPECT_EQ(h["rows"][0]["cells"][0], 12.0);  // the slowest of steps 1-17
  EXPECT_EQ(deck["metric_charts"]["step_note"],
            "Per-step charts show each rank's first 1000 steps: rank 0 has 1001, rank 1 has 1001.");
}

// Issue 46, 3: at 512 ranks the deck is one heatmap of 64 rows of 8 ranks, at most 2 MB
// (HTML and JSON as written) and 40 charts, the slow rank and the diagnosis outlier named.
TEST(StepHeatmap, DeckAt512RanksIsSmallAndNamesTheWorst) {
  aorta::testing::DeckFixture f;
  f.result = ranks_with_steps(512, 100, 10, 77);
  metrics::Finding outlier;
  outlier.rank = 300;
  outlier.node = "node37";
  outlier.gpu = 4;
  outlier.measure = "gemm mean kernel time";
  f.result.outliers = {outlier};
  for (auto& r : f.result.per_rank)  // a GEMM and an all-reduce bar a rank in the Diagnosis
    r.diagnosis = aorta::testing::diagnosed_rank(*r.rank, {{"gemm", 4, 4000.0 + *r.rank, 0.4}},
                                                 {aorta::testing::collective("allreduce", 4194304, 20.0)})
                      .diagnosis;
  const auto deck = run_deck_json(f.input());
  const auto& h = deck["metric_charts"]["step_heatmap"];
  ASSERT_EQ(h["rows"].size(), 64u);
  EXPECT_EQ(h["rows"][9]["label"], "ranks 72-79");
  EXPECT_EQ(h["rows"][9]["cells"][0], 22.0);  // rank 77's steps 1 and 2, doubled
  EXPECT_EQ(h["caption"], "Rows: 8 ranks each, the slowest of them; columns: 2 steps each, the slowest; colour: the "
                          "step time against the median step, 11.00 ms.");
  // The per-rank charts: the 16 ranks of longest iteration (ranks 496-511), 3 bars each.
  const auto& time = deck["metric_charts"]["charts"][0];
  EXPECT_EQ(time["title"], "Time by rank (the 16 slowest of 512 by iteration time)");
  ASSERT_EQ(time["bars"].size(), 48u);
  EXPECT_EQ(time["bars"][0][0], "rank 496 iteration");
  const std::string html = deck_page(deck);
  const std::string json = result_json::json_text(deck);  // as outputs.cc writes it
  EXPECT_LE(html.size() + json.size(), 2u << 20) << html.size() << " + " << json.size();
  EXPECT_EQ(count(html, "<svg"), 1 + 3 + 1 + 8 + 8u);  // timeline, per-rank, heatmap, Diagnosis
  EXPECT_NE(html.find("the 8 of 512 ranks furthest from the median"), std::string::npos);
  EXPECT_NE(html.find(">node9 rank 77 (GPU 5): slowest #1, mean"), std::string::npos);
  EXPECT_NE(html.find(">node37 rank 300 (GPU 4): outlier: gemm mean kernel time, mean"), std::string::npos);
}

}  // namespace
}  // namespace aorta::report
