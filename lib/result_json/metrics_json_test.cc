#include "result_json/metrics_json.h"

#include <gtest/gtest.h>

#include "common/utf8.h"

namespace aorta::result_json {
namespace {

TEST(MetricsJson, TraceFileNamesAndParseMessagesBecomeValidUtf8) {
  metrics::RunMetrics run;
  metrics::RankMetrics rank;
  rank.rank = 1;
  rank.rank_source = "path";
  rank.source = "/out/traces/rank1/h\xffst\xc3_1.pt.trace.json";
  run.per_rank.push_back(rank);
  auto ranks = per_rank_json(run);
  EXPECT_EQ(ranks[0]["source"], "/out/traces/rank1/h\xEF\xBF\xBDst\xEF\xBF\xBD_1.pt.trace.json");

  metrics::TraceSet set;
  set.warnings.push_back("duplicate rank 0 in /t/\xfe.json");
  set.errors.push_back("rank0.json: invalid UTF-8 near \"aten::\xe2\x82\"");  // a snippet cut mid-character
  auto parse = parse_json(set);
  EXPECT_EQ(parse["warnings"][0], "duplicate rank 0 in /t/\xEF\xBF\xBD.json");
  EXPECT_EQ(parse["errors"][0], "rank0.json: invalid UTF-8 near \"aten::\xEF\xBF\xBD\"");
  std::string text;
  ASSERT_NO_THROW(text = json_text({{"per_rank_summary", ranks}, {"parse", parse}}));
  EXPECT_TRUE(is_valid_utf8(text));
}

TEST(MetricsJson, JsonTextReplacesWhatSlippedPastInsteadOfThrowing) {
  ordered_json doc;
  doc["error_message"] = "cut \xe2\x82";  // stored as is: nlohmann checks only when dumping
  std::string text;
  ASSERT_NO_THROW(text = json_text(doc));
  EXPECT_EQ(text, "{\n  \"error_message\": \"cut \xEF\xBF\xBD\"\n}\n");
}

// Issue 29: a ProfilerStep flood made a 356 MB JSON report. Each rank's per-step rows
// and the stragglers stop at 1000, and a note says how many there were.
TEST(MetricsJson, PerStepRowsStopAtTheCapWithANote) {
  auto steps = [](size_t n) {
    std::vector<metrics::StepMetrics> out(n);
    for (size_t i = 0; i < n; ++i) {
      out[i].step = static_cast<int64_t>(i) + 1;
      out[i].time_ms = 1;
    }
    return out;
  };
  metrics::RunMetrics run;
  for (size_t n : {1500u, 1000u, 0u}) {
    metrics::RankMetrics r;
    r.rank = static_cast<int>(run.per_rank.size());
    r.steps = steps(n);
    run.per_rank.push_back(r);
  }
  const ordered_json ranks = per_rank_json(run);
  ASSERT_EQ(ranks[0]["steps"].size(), 1000u);
  EXPECT_EQ(ranks[0]["steps"][0]["step"], 1);
  EXPECT_EQ(ranks[0]["steps"][999]["step"], 1000);
  EXPECT_EQ(ranks[0]["steps_note"], "per-step rows: first 1000 of 1500 shown");
  EXPECT_EQ(ranks[1]["steps"].size(), 1000u);
  EXPECT_TRUE(ranks[1]["steps_note"].is_null());
  EXPECT_TRUE(ranks[2]["steps"].empty());
  EXPECT_TRUE(ranks[2]["steps_note"].is_null());

  metrics::StepSummary summary;
  for (int64_t i = 1; i <= 1200; ++i) summary.stragglers.push_back({i, 1, 0.5});
  summary.worst = summary.stragglers.front();
  run.steps = summary;
  ordered_json perf = performance_json(run);
  ASSERT_EQ(perf["step_stragglers"].size(), 1000u);
  EXPECT_EQ(perf["step_stragglers"][999]["step"], 1000);
  EXPECT_EQ(perf["step_straggler_note"], "per-step rows: first 1000 of 1200 shown");
  run.steps->stragglers.resize(1000);
  EXPECT_TRUE(performance_json(run)["step_straggler_note"].is_null());
  run.steps->stragglers.clear();
  run.steps->worst.reset();
  EXPECT_EQ(performance_json(run)["step_straggler_note"], metrics::kNoStragglerPeer);
}

}  // namespace
}  // namespace aorta::result_json
