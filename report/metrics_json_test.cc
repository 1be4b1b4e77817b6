#include "report/metrics_json.h"

#include <gtest/gtest.h>

#include "common/utf8.h"

namespace aorta::report {
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

}  // namespace
}  // namespace aorta::report
