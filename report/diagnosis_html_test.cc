// The HTML report's Diagnosis section on hand-made diagnoses: mean GEMM kernel 10, 11
// and 12 us, so the median is 11 and the bars are scaled to 12 us = 300 px.
#include "report/diagnosis_html.h"

#include <sstream>

#include <gtest/gtest.h>

#include "tests/diagnosis_fixture.h"

namespace aorta::report {
namespace {

// 10 GEMM kernels in time_us; an all-reduce of 4194304 B at allreduce_gbps when given.
metrics::RankMetrics rank_with_gemm(int rank, double time_us, std::optional<double> allreduce_gbps = {}) {
  std::vector<metrics::CollectiveBandwidth> collectives;
  if (allreduce_gbps) collectives.push_back(aorta::testing::collective("allreduce", 4194304, allreduce_gbps));
  return aorta::testing::diagnosed_rank(rank, {{"gemm", 10, time_us, 0}}, collectives);
}

size_t count(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

std::string html_of(const metrics::RunMetrics& run) {
  std::ostringstream out;
  write_diagnosis_html(run, out);
  return out.str();
}

TEST(DiagnosisHtml, EachRankABarAgainstTheMedianInUs) {
  metrics::RunMetrics run;
  run.per_rank = {rank_with_gemm(0, 100), rank_with_gemm(1, 110), rank_with_gemm(2, 120)};
  const std::string html = html_of(run);
  EXPECT_NE(html.find("<th>Mean GEMM kernel time</th>"), std::string::npos) << html;
  EXPECT_NE(html.find("the median of 3 ranks, 11.00 us"), std::string::npos) << html;
  EXPECT_NE(html.find("<tr><td>rank 2</td><td>12.00 us</td><td>1.0909x</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("class=\"bar\" x=\"0\" y=\"3\" width=\"300.00\""), std::string::npos) << html;  // 12 us
  EXPECT_NE(html.find("class=\"bar\" x=\"0\" y=\"3\" width=\"250.00\""), std::string::npos) << html;  // 10 us
  EXPECT_EQ(count(html, "x1=\"275.00\""), 3u) << html;  // the median on every row, 300 * 11 / 12
  EXPECT_NE(html.find("No outlier."), std::string::npos) << html;
  EXPECT_EQ(html.find("bus bandwidth"), std::string::npos) << html;  // no collective, no bandwidth bars
  // Jenkins' CSP blocks scripts and inline styles: neither may carry meaning here.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("style="), std::string::npos);
}

// All-reduce at 4194304 B: 20, 40 and 30 GB/s, median 30; bars scaled to 40 = 300 px:
// 150, 300 and 225 px, the median's line at 225; rank 0 at 20 / 30 = 0.6667x.
TEST(DiagnosisHtml, EachRankABusBandwidthBarInGbps) {
  metrics::RunMetrics run;
  run.per_rank = {rank_with_gemm(0, 100, 20), rank_with_gemm(1, 110, 40), rank_with_gemm(2, 120, 30)};
  const std::string html = html_of(run);
  const size_t table = html.find("<table id=\"diagnosis-busbw-allreduce\">");
  ASSERT_NE(table, std::string::npos) << html;
  EXPECT_GT(table, html.find("<table id=\"diagnosis\">"));  // beside the GEMM bars, after them
  EXPECT_NE(html.find("<th>allreduce bus bandwidth at 4194304 B</th>", table), std::string::npos) << html;
  EXPECT_NE(html.find("the median of 3 ranks, 30.00 GB/s", table), std::string::npos) << html;
  EXPECT_NE(html.find("<tr><td>rank 0</td><td>20.00 GB/s</td><td>0.6667x</td>", table), std::string::npos) << html;
  for (const char* width : {"150.00", "300.00", "225.00"})
    EXPECT_NE(html.find(std::string("class=\"bar\" x=\"0\" y=\"3\" width=\"") + width, table), std::string::npos) << width;
  EXPECT_EQ(count(html.substr(table), "x1=\"225.00\""), 3u) << html;
  EXPECT_EQ(html.find("diagnosis-busbw-allgather"), std::string::npos) << html;  // no all-gather in these ranks
  EXPECT_EQ(html.find("style="), std::string::npos);
}

// Issue 46: past 8 ranks the per-rank table leads with each column's min, median and
// max and the slowest 8, every rank folded in a <details>; each measure's bars are the 8
// furthest from the median, the others' values folded below them without a bar.
TEST(DiagnosisHtml, PastEightRanksTheSummaryAndTheFurthestFirstTheRestFolded) {
  metrics::RunMetrics run;
  for (int r = 0; r < 512; ++r) run.per_rank.push_back(rank_with_gemm(r, 100 + (r == 7 ? 50 : r % 3)));
  for (auto& r : run.per_rank) r.total_time_us = 1000 + 2 * r.rank.value();
  const std::string html = html_of(run);
  const size_t all = html.find("<details id=\"per-rank-all\"><summary>Every rank (512)</summary>");
  ASSERT_NE(all, std::string::npos) << html.substr(0, 3000);
  const std::string listed = html.substr(0, all);
  EXPECT_EQ(count(listed, "<tr class=\"summary\">"), 3u);
  EXPECT_NE(listed.find("<tr class=\"summary\"><td>median</td><td></td><td>1.511 ms</td>"), std::string::npos) << listed;
  EXPECT_NE(listed.find("<tr><td>rank 511</td>"), std::string::npos);
  EXPECT_EQ(listed.find("<tr><td>rank 503</td>"), std::string::npos);
  EXPECT_NE(listed.find("8 of 512 ranks listed (the outliers, then the slowest); 504 left out"), std::string::npos);
  EXPECT_EQ(count(html.substr(all, html.find("</details>", all) - all), "<tr><td>rank "), 512u);
  // 8 bars (each an <svg>), rank 7 (15 us against 10.1) among them; 504 values folded.
  EXPECT_EQ(count(html, "<svg"), 8u);
  EXPECT_NE(html.find("the median of 512 ranks"), std::string::npos);
  const size_t folded = html.find("<details class=\"other-ranks\"><summary>Mean GEMM kernel time: the other 504 ranks");
  ASSERT_NE(folded, std::string::npos);
  EXPECT_LT(html.find("<tr><td>rank 7</td><td>15.00 us</td>"), folded);
  EXPECT_EQ(count(html.substr(folded), "<tr><td>rank "), 504u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("style="), std::string::npos);
}

TEST(DiagnosisHtml, OutliersAreNamedWithTheirReason) {
  metrics::RunMetrics run;
  run.per_rank = {rank_with_gemm(0, 100), rank_with_gemm(1, 110), rank_with_gemm(2, 120)};
  metrics::Finding f;
  f.rank = 2;
  f.reason = "GEMM <slow>";
  run.outliers.push_back(f);
  EXPECT_NE(html_of(run).find("rank 2: GEMM &lt;slow&gt;</p>"), std::string::npos) << html_of(run);
  EXPECT_EQ(html_of(run).find("No outlier"), std::string::npos) << html_of(run);
}

TEST(DiagnosisHtml, TooFewRanksSaySoAndNoDiagnosisWritesNothing) {
  metrics::RunMetrics run;
  run.per_rank = {rank_with_gemm(0, 100, 5), rank_with_gemm(1, 110, 7)};
  const std::string html = html_of(run);
  EXPECT_NE(html.find("No per-rank compute comparison: fewer than 3 ranks"), std::string::npos) << html;
  EXPECT_NE(html.find("No outlier test: 2 rank(s) diagnosed, at least 3 needed"), std::string::npos) << html;
  // The bandwidth needs no median test: two ranks, median (5 + 7) / 2 = 6.
  EXPECT_NE(html.find("the median of 2 ranks, 6.00 GB/s"), std::string::npos) << html;
  EXPECT_EQ(html_of(metrics::RunMetrics{}), "");
}

// Issue 45, 7: a CPU run (no GPU timeline, so no rank diagnosed) still has the per-rank
// table and a Diagnosis line saying why there are no bars.
TEST(DiagnosisHtml, ACpuRunHasThePerRankTableAndADiagnosisLine) {
  metrics::RunMetrics run;
  for (int rank : {0, 1}) {
    metrics::RankMetrics r;
    r.rank = rank;
    r.node = "localhost";
    r.parser = metrics::ParserPath::kCpuTimeline;
    r.total_time_us = 2500 + 500 * rank;
    r.compute_ratio = 0.5;
    run.per_rank.push_back(r);
  }
  const std::string html = html_of(run);
  EXPECT_NE(html.find("<h2>Diagnosis</h2>"), std::string::npos) << html;
  EXPECT_NE(html.find("<tr><td>localhost rank 1</td><td>cpu_timeline</td><td>3.000 ms</td><td>50.00%</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find(">No diagnosis: no rank has kernels on a GPU timeline.</p>"), std::string::npos) << html;
}

}  // namespace
}  // namespace aorta::report
