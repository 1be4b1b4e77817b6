// analyze's console table on the original's two-rank fixture (rank 1 12000/9000/4000
// us, rank 0 10000/8000/3000 us, total/compute/comm): every ratio on it, the steps
// line's cv included, is a percentage (issue 33: one unit style per line).
#include "report/summary_table.h"

#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/rank_fixture.h"

namespace aorta::report {
namespace {

using aorta::testing::rank_metrics;

metrics::RunMetrics fixture_run() {
  auto run = metrics::aggregate({rank_metrics(1, 12000, 9000, 4000), rank_metrics(0, 10000, 8000, 3000)}).value();
  // 4 steps, 8 rank-steps: mean, median, p95, max (ms), cv; no straggler list, the worst
  metrics::StepSummary steps{4, 8, 5.5, 5.25, 6.5, 7, 0.0891, {}, metrics::StepStraggler{3, 1, 1.5}};
  run.steps = steps;
  return run;
}

TEST(SummaryTable, RatiosArePercentagesOnEveryLine) {
  std::ostringstream out;
  write_summary_table(fixture_run(), out);
  EXPECT_EQ(out.str(),
            "  rank  parser                  iteration time ms    compute ms  comm (CVS) ms    total comm   compute"
            "  comm (CVS)   overlap\n"
            "     0  basic_scan                         10.000         8.000          3.000         3.000    80.00%"
            "      30.00%    33.33%\n"
            "     1  basic_scan                         12.000         9.000          4.000         4.000    75.00%"
            "      33.33%    25.00%\n"
            // One name per quantity (issue 45, 5): the iteration time is the window of its steps.
            "avg iteration time (the profiled window of 4 steps) 11.000 ms (std 1.414 ms, min 10.000, max 12.000); "
            "compute 77.50%, comm (CVS) 31.67%, overlap 29.17% over 2 rank(s)\n"
            // Until issue 33 the cv alone was a fraction here: "cv 0.0891".
            "steps: 4 (8 rank-steps), per-step time mean 5.500 ms, median 5.250, p95 6.500, max 7.000, cv 8.91%; worst "
            "straggler step 3 on rank 1, +1.500 ms over the fastest\n"
            "comm (CVS) = CVS's comm: exposed communication on the GPU and CPU timeline paths, total communication on "
            "the basic scan; overlap = share of communication that runs under compute\n");
}

// analyze's table past 8 ranks (13 here): the summary and the 8 slowest; --ranks all every rank.
TEST(SummaryTable, PastEightRanksASummaryUnlessEveryRankIsAskedFor) {
  std::vector<metrics::RankMetrics> ranks;
  for (int r = 0; r < 13; ++r) ranks.push_back(rank_metrics(r, 10000 + r, 8000, 3000));
  const auto run = metrics::aggregate(ranks).value();
  std::ostringstream summary, every;
  write_summary_table(run, summary);
  write_summary_table(run, every, true);
  const std::string text = summary.str();
  EXPECT_NE(text.find(fmt::format("\n{:>6}{:37}10.000  ", "min", "")), std::string::npos) << text;
  EXPECT_NE(text.find(fmt::format("\n{:>6}{:37}10.006  ", "median", "")), std::string::npos) << text;
  EXPECT_EQ(text.find("\n     4  basic_scan"), std::string::npos) << text;
  EXPECT_NE(text.find("\n     5  basic_scan"), std::string::npos) << text;
  EXPECT_NE(text.find("\n8 of 13 ranks listed (the outliers, then the slowest); 5 left out; every rank: analyze "
                      "--ranks all, or the JSON output (per_rank_summary)\n"),
            std::string::npos)
      << text;
  for (int r = 0; r < 13; ++r) EXPECT_NE(every.str().find(fmt::format("\n{:>6}  basic_scan", r)), std::string::npos);
  EXPECT_EQ(every.str().find(" left out"), std::string::npos);
}

// The run summary's steps line keeps the fractions of its own table.
TEST(SummaryTable, StepsLineInTheStyleOfItsTable) {
  const auto run = fixture_run();
  EXPECT_NE(steps_line(run, metrics::RatioStyle::kPercent).find(", cv 8.91%; "), std::string::npos);
  EXPECT_NE(steps_line(run, metrics::RatioStyle::kFraction).find(", cv 0.0891; "), std::string::npos);
}

}  // namespace
}  // namespace aorta::report
