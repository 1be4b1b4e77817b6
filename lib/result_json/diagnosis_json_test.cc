// The diagnosis object of the JSON reports: its fields, and that it passes the
// schema (tests/suite/json_schema.py, the checker the suite tests use).
#include "result_json/diagnosis_json.h"

#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "tests/rank_fixture.h"
#include "tests/report_schema.h"
#include "tests/temp_dir.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::result_json {
namespace {

metrics::RunMetrics diagnosed_run() {
  metrics::RunMetrics run;
  for (int r = 0; r < 3; ++r) {
    metrics::RankMetrics m = aorta::testing::rank_metrics(r, 1000, 600, 300);
    m.diagnosis = metrics::RankDiagnosis{1000,
                                         {{"gemm", 10, 400, 0.4}, {"collective:allreduce", 2, 300, 0.3}},
                                         {{"allreduce", "Float", 8, 4194304, 2, 300, 27.96, 48.93},
                                          {"barrier", "Byte", 8, 0, 1, 5, 0, std::nullopt}},
                                         {{"no dtype", 1, 7}}};
    m.diagnosis->idle = {.host_wait_us = 250, .kernel_wait_us = 0.02, .other_us = 49.98, .host_wait_gaps = 7, .gaps = 9};
    m.node = "n" + std::to_string(r / 2);
    m.gpu = r % 2;
    run.per_rank.push_back(m);
  }
  run.outliers.push_back({.node = "n1", .source = "", .measure = "outlier ranks", .unit = "ranks", .value = 2,
                          .ranks = 3, .ratio = 1.15, .reason = "2 of its ranks are outliers", .of_node = true});
  run.outliers.push_back({.rank = 2, .node = "n1", .gpu = 0, .source = "rank2.json", .measure = "gemm mean kernel time",
                          .unit = "us", .value = 46, .median = 40, .ranks = 3, .ratio = 1.15,
                          .reason = "gemm 15.0% slower"});
  // A rank of unknown number on a known node is still a rank's finding.
  run.outliers.push_back({.node = "n0", .source = "r.json", .measure = "gemm mean kernel time", .unit = "us",
                          .value = 45, .median = 40, .ranks = 3, .ratio = 1.125, .reason = "gemm 12.5% slower"});
  return run;
}

TEST(DiagnosisJson, FieldsOfARankAndAnOutlier) {
  const ordered_json d = diagnosis_json(diagnosed_run());
  ASSERT_EQ(d["ranks"].size(), 3u);
  const ordered_json& r = d["ranks"][0];
  EXPECT_EQ(r["window_us"], 1000);
  EXPECT_EQ(r["kernel_classes"][0]["class"], "gemm");
  EXPECT_EQ(r["kernel_classes"][0]["share_of_window"], 0.4);
  EXPECT_EQ(r["collectives"][0]["message_bytes"], 4194304);
  EXPECT_EQ(r["collectives"][0]["busbw_gbps"], 48.93);
  EXPECT_TRUE(r["collectives"][1]["busbw_gbps"].is_null());
  EXPECT_EQ(r["missing_metadata"][0]["reason"], "no dtype");
  EXPECT_EQ(r["node"], "n0");
  EXPECT_EQ(r["gpu"], 0);
  EXPECT_EQ(r["idle"]["host_wait_us"], 250);
  EXPECT_EQ(r["idle"]["other_us"], 49.98);
  EXPECT_EQ(r["idle"]["host_wait_gaps"], 7);
  EXPECT_TRUE(d["outliers"][0]["rank"].is_null());  // the node's own finding
  EXPECT_TRUE(d["outliers"][0]["median"].is_null());
  EXPECT_TRUE(d["outliers"][0]["ratio_to_median"].is_null());
  EXPECT_EQ(d["outliers"][0]["of_node"], true);
  EXPECT_EQ(d["outliers"][2]["median"], 40);
  EXPECT_EQ(d["outliers"][0]["node"], "n1");
  EXPECT_EQ(d["outliers"][1]["rank"], 2);
  EXPECT_EQ(d["outliers"][1]["gpu"], 0);
  EXPECT_EQ(d["outliers"][1]["ratio_to_median"], 1.15);
}

// The console's lines name the node and GPU; a node's finding has no value of its own.
TEST(DiagnosisJson, ConsoleLinesNameNodeRankAndGpu) {
  const std::vector<std::string> lines = diagnosis_lines(diagnosed_run());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "n1: 2 of its ranks are outliers");
  EXPECT_EQ(lines[1], "n1 rank 2 (GPU 0): gemm 15.0% slower (46 us vs median 40)");
  EXPECT_EQ(lines[2], "n0 rank unknown: gemm 12.5% slower (45 us vs median 40)");
}

TEST(DiagnosisJson, PassesTheReportSchema) {
  aorta::testing::TempDir dir;
  const auto file = dir.write("d.json", json_text(diagnosis_json(diagnosed_run())));
  EXPECT_TRUE(aorta::testing::passes_report_schema(file, "diagnosis"));
}

}  // namespace
}  // namespace aorta::result_json
