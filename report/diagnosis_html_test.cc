// The HTML report's Diagnosis section on hand-made diagnoses: mean GEMM kernel 10, 11
// and 12 us, so the median is 11 and the bars are scaled to 12 us = 300 px.
#include "report/diagnosis_html.h"

#include <sstream>

#include <gtest/gtest.h>

namespace aorta::report {
namespace {

metrics::RankMetrics rank_with_gemm(int rank, double time_us) {
  metrics::RankMetrics m;
  m.rank = rank;
  m.diagnosis = metrics::RankDiagnosis{1000, {{"gemm", 10, time_us, 0}}, {}, {}};
  return m;
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
  EXPECT_NE(html.find("x1=\"275.00\""), std::string::npos) << html;  // the median, 300 * 11 / 12
  EXPECT_NE(html.find("No outlier."), std::string::npos) << html;
  // Jenkins' CSP blocks scripts and inline styles: neither may carry meaning here.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("style="), std::string::npos);
}

TEST(DiagnosisHtml, OutliersAreNamedWithTheirReason) {
  metrics::RunMetrics run;
  run.per_rank = {rank_with_gemm(0, 100), rank_with_gemm(1, 110), rank_with_gemm(2, 120)};
  run.outliers.push_back({2, "r2.json", "gemm mean kernel time", "us", 12, 11, 3, 12.0 / 11, "GEMM <slow>"});
  EXPECT_NE(html_of(run).find("rank 2: GEMM &lt;slow&gt;</p>"), std::string::npos) << html_of(run);
}

TEST(DiagnosisHtml, TooFewRanksSaySoAndNoDiagnosisWritesNothing) {
  metrics::RunMetrics run;
  run.per_rank = {rank_with_gemm(0, 100), rank_with_gemm(1, 110)};
  EXPECT_NE(html_of(run).find("No per-rank comparison: fewer than 3 ranks"), std::string::npos);
  run.per_rank = {metrics::RankMetrics{}};
  EXPECT_EQ(html_of(run), "");
}

}  // namespace
}  // namespace aorta::report
