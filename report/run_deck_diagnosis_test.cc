// The Run Deck's Diagnosis section on hand-made diagnoses: mean GEMM kernel 10, 11 and
// 12 us (median 11, bars scaled to 12 us = 300 px), all-reduce at 4194304 B 20, 40 and
// 30 GB/s (median 30, scaled to 40: 150, 300, 225 px), an all-gather on rank 2 only.
#include "report/run_deck_diagnosis.h"

#include <sstream>

#include <gtest/gtest.h>

#include "report/run_deck.h"
#include "tests/diagnosis_fixture.h"
#include "tests/rank_fixture.h"

namespace aorta::report {
namespace {

using aorta::testing::collective;
using aorta::testing::diagnosed_rank;

metrics::RunMetrics three_ranks() {
  metrics::RunMetrics run;
  run.per_rank = {diagnosed_rank(0, {{"gemm", 10, 100, 0.1}}, {collective("allreduce", 4194304, 20)}),
                  diagnosed_rank(1, {{"gemm", 10, 110, 0.11}}, {collective("allreduce", 4194304, 40)}),
                  diagnosed_rank(2, {{"gemm", 10, 120, 0.12}},
                                 {collective("allreduce", 4194304, 30), collective("_allgather_base", 1048576, 8)})};
  return run;
}

std::string html_of(const nlohmann::ordered_json& diagnosis) {
  std::ostringstream out;
  deck_diagnosis_html(diagnosis, out);
  return out.str();
}

TEST(RunDeckDiagnosis, BarsAgainstTheMedianInUsAndGbps) {
  const metrics::RunMetrics run = three_ranks();
  const nlohmann::ordered_json d = deck_diagnosis_json(&run);
  EXPECT_TRUE(d["note"].is_null());
  EXPECT_EQ(d["compute"]["measure"], "Mean GEMM kernel time");
  EXPECT_EQ(d["compute"]["unit"], "us");
  EXPECT_DOUBLE_EQ(d["compute"]["median"].get<double>(), 11);
  EXPECT_EQ(d["compute"]["bars"], nlohmann::ordered_json::parse(R"([["rank 0", 10.0], ["rank 1", 11.0], ["rank 2", 12.0]])"));
  ASSERT_EQ(d["busbw"].size(), 2u);  // all-reduce, all-gather; no reduce-scatter
  EXPECT_EQ(d["busbw"][0]["measure"], "allreduce bus bandwidth at 4194304 B");
  EXPECT_EQ(d["busbw"][0]["unit"], "GB/s");
  EXPECT_DOUBLE_EQ(d["busbw"][0]["median"].get<double>(), 30);
  EXPECT_EQ(d["busbw"][1]["id"], "diagnosis-busbw-allgather");
  EXPECT_EQ(d["busbw"][1]["bars"], nlohmann::ordered_json::parse(R"([["rank 2", 8.0]])"));
  EXPECT_EQ(d["outlier_note"], "No outlier.");
  const std::string html = html_of(d);
  EXPECT_NE(html.find("<section id=\"diagnosis-section\"><h2>Diagnosis</h2>"), std::string::npos) << html;
  EXPECT_NE(html.find("<tr><td>rank 2</td><td>12.00 us</td><td>1.0909x</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("x1=\"275.00\""), std::string::npos) << html;  // GEMM median, 300 * 11 / 12
  EXPECT_NE(html.find("<tr><td>rank 0</td><td>20.00 GB/s</td><td>0.6667x</td>"), std::string::npos) << html;
  for (const char* width : {"250.00", "150.00", "225.00"})  // 10 of 12 us; 20 and 30 of 40 GB/s
    EXPECT_NE(html.find(std::string("class=\"bar\" x=\"0\" y=\"3\" width=\"") + width), std::string::npos) << width;
  EXPECT_NE(html.find("the median of 1 ranks, 8.00 GB/s"), std::string::npos) << html;
  EXPECT_NE(html.find("<p>No outlier.</p>"), std::string::npos) << html;
  // Jenkins' default CSP: no script, no inline style.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("style="), std::string::npos);
}

TEST(RunDeckDiagnosis, OutliersAreNamedWithTheirReason) {
  metrics::RunMetrics run = three_ranks();
  metrics::Finding f;
  f.rank = 1;
  f.measure = "gemm mean kernel time";
  f.reason = "GEMM <slow>: suspect this GPU";
  run.outliers.push_back(f);
  const nlohmann::ordered_json d = deck_diagnosis_json(&run);
  EXPECT_TRUE(d["outlier_note"].is_null());
  ASSERT_EQ(d["outliers"].size(), 1u);
  EXPECT_EQ(d["outliers"][0]["rank"], 1);
  EXPECT_EQ(d["outliers"][0]["measure"], "gemm mean kernel time");
  EXPECT_NE(html_of(d).find("<p class=\"fail\">rank 1: GEMM &lt;slow&gt;: suspect this GPU</p>"), std::string::npos)
      << html_of(d);
}

// In the deck: null without metrics (no section); a note when no rank has a diagnosis;
// the compute bars' place says why with fewer than 3 ranks, the bandwidth bars stay.
TEST(RunDeckDiagnosis, InTheDeckAndWhatItSaysWithoutBars) {
  EXPECT_TRUE(deck_diagnosis_json(nullptr).is_null());
  RunRecord record;
  config::Variant variant;
  const metrics::RunMetrics plain =
      metrics::aggregate({aorta::testing::rank_metrics(0, 10000, 8000, 3000)}).value();
  DeckInput in{&record, &variant, 1, 1, 0, &plain, "", "", "", ""};
  const nlohmann::ordered_json deck = run_deck_json(in);
  EXPECT_EQ(deck["diagnosis"]["note"], "No diagnosis: no rank has kernels on a GPU timeline.");
  std::ostringstream html;
  write_run_deck_html(deck, html);
  EXPECT_NE(html.str().find("<p>No diagnosis: no rank has kernels on a GPU timeline.</p>"), std::string::npos);
  in.result = nullptr;
  std::ostringstream none;
  write_run_deck_html(run_deck_json(in), none);
  EXPECT_EQ(none.str().find("diagnosis-section"), std::string::npos);

  metrics::RunMetrics two = three_ranks();
  two.per_rank.pop_back();
  const nlohmann::ordered_json d = deck_diagnosis_json(&two);
  EXPECT_TRUE(d["compute"].is_null());
  EXPECT_EQ(d["compute_note"], "No per-rank compute comparison: fewer than 3 ranks have compute kernels on a GPU timeline.");
  EXPECT_EQ(d["outlier_note"], "No outlier test: 2 rank(s) diagnosed, at least 3 needed for a median and MAD.");
  ASSERT_EQ(d["busbw"].size(), 1u);
  EXPECT_DOUBLE_EQ(d["busbw"][0]["median"].get<double>(), 30);  // (20 + 40) / 2
}

// Issue 46, 3: past 8 ranks the deck's bars are the 8 furthest from the median (a
// row and an SVG a rank made 1,024 charts at 512 ranks); the line stays the median of
// all, and the page says which are shown. 40 ranks of mean GEMM 100-139 us: median 119.5,
// ranks 0-3 and 36-39 furthest.
TEST(RunDeckDiagnosis, ManyRanksShowTheFurthestFromTheMedian) {
  metrics::RunMetrics run;
  for (int i = 0; i < 40; ++i)
    run.per_rank.push_back(diagnosed_rank(i, {{"gemm", 10, 1000.0 + 10 * i, 0.1}}, {collective("allreduce", 4194304, 20)}));
  const nlohmann::ordered_json d = deck_diagnosis_json(&run);
  const auto& bars = d["compute"]["bars"];
  ASSERT_EQ(bars.size(), 8u);
  EXPECT_EQ(d["compute"]["ranks"], 40);
  EXPECT_EQ(bars[3][0], "rank 3");
  EXPECT_EQ(bars[4][0], "rank 36");
  const std::string html = html_of(d);
  EXPECT_NE(html.find("<p>Mean GEMM kernel time: the 8 of 40 ranks furthest from the median; the JSON report has "
                      "every rank.</p>"), std::string::npos) << html;
  EXPECT_NE(html.find("the median of 40 ranks, 119.50 us"), std::string::npos) << html;
  EXPECT_EQ(html.find("<tr><td>rank 20</td>"), std::string::npos);
}

}  // namespace
}  // namespace aorta::report
