// The telemetry's evidence and the GPUs' own findings where the diagnosis is shown:
// the console's Diagnosis lines, the HTML report, the Run Deck's Diagnosis section and
// the JSON report's diagnosis (and its schema). Four ranks on node3's GPUs 0..3, rank 3
// slow on a hot, throttled GPU 3; GPU 1's times are normal but its ECC counters rose.
#include <sstream>

#include <gtest/gtest.h>

#include "metrics/telemetry_findings.h"
#include "report/diagnosis_html.h"
#include "report/report_writer.h"
#include "report/run_deck_diagnosis.h"
#include "result_json/diagnosis_json.h"
#include "tests/diagnosis_fixture.h"
#include "tests/report_schema.h"
#include "tests/telemetry_fixture.h"
#include "tests/temp_dir.h"

namespace aorta::report {
namespace {

using aorta::testing::kHotGpu3;

constexpr const char* kGpu1 =
    "node3 GPU 1: out of line in its telemetry, though no rank on it is by its times (yet); its GPU had 2 new "
    "uncorrectable ECC/RAS errors";

metrics::RunMetrics joined_run(bool diagnosed = true) {
  metrics::RunMetrics run;
  for (int r = 0; r < 4; ++r) {
    metrics::RankMetrics m = aorta::testing::diagnosed_rank(r, {{"gemm", 10, r == 3 ? 1170.0 : 1000.0, 0.5}});
    m.node = "node3";
    m.gpu = r;
    if (!diagnosed) m.diagnosis.reset();
    run.per_rank.push_back(m);
  }
  run.outliers = metrics::find_outliers(run.per_rank);
  run.telemetry = aorta::testing::fleet_with_hot_gpu3();
  run.telemetry->gpus[1].ecc->uncorrectable = 2;
  metrics::join_telemetry(run);
  return run;
}

std::string html_of(const metrics::RunMetrics& run) {
  std::ostringstream out;
  write_diagnosis_html(run, out);
  return out.str();
}

std::string deck_html_of(const nlohmann::ordered_json& d) {
  std::ostringstream out;
  deck_diagnosis_html(d, out);
  return out.str();
}

TEST(TelemetryDiagnosis, ConsoleLinesCarryTheEvidenceAndTheGpusFinding) {
  const std::vector<std::string> lines = result_json::diagnosis_lines(joined_run());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], std::string("node3 rank 3 (GPU 3): gemm mean kernel time 17.0% slower than the median of 4 ranks "
                                  "for the same kernels; its bus bandwidth is normal: suspect this GPU (clocks, "
                                  "thermals), not the fabric (117 us vs median 100); ") + kHotGpu3);
  EXPECT_EQ(lines[1], kGpu1);
}

TEST(TelemetryDiagnosis, GpuFindingAloneFollowsTheNoOutlierLine) {
  metrics::RunMetrics run = joined_run();
  run.outliers.erase(run.outliers.begin());  // rank 3's finding
  EXPECT_EQ(result_json::diagnosis_lines(run), (std::vector<std::string>{"no outlier among 4 ranks", kGpu1}));
  EXPECT_NE(html_of(run).find("No outlier."), std::string::npos);
}

// Six ranks' findings and a GPU's: the console's five lines keep the GPU's (telemetry
// can name a GPU before its times show it) and count the three left out.
TEST(TelemetryDiagnosis, AGpusFindingShowsPastTheConsolesRoomAndTheRestAreCounted) {
  metrics::RunMetrics run = joined_run();
  ASSERT_EQ(run.outliers.size(), 2u);
  ASSERT_TRUE(run.outliers[1].of_gpu);
  for (int r = 4; r <= 8; ++r) {
    auto copy = run.outliers[0];
    copy.rank = r;
    run.outliers.insert(run.outliers.begin() + 1, copy);
  }
  const auto lines = result_json::diagnosis_lines(run);
  ASSERT_EQ(lines.size(), result_json::kMaxDiagnosisLines);
  EXPECT_EQ(lines[0].rfind("node3 rank 3 (GPU 3): gemm", 0), 0u) << lines[0];
  EXPECT_EQ(lines[3], kGpu1);
  EXPECT_EQ(lines[4], "and 3 more finding(s): every one in the JSON report's diagnosis.outliers");
}

TEST(TelemetryDiagnosis, HtmlAndRunDeckShowTheEvidence) {
  const metrics::RunMetrics run = joined_run();
  const std::string html = html_of(run);
  EXPECT_NE(html.find(escape_xml(std::string("not the fabric; ") + kHotGpu3) + "</p>"), std::string::npos) << html;
  EXPECT_NE(html.find(escape_xml(kGpu1) + "</p>"), std::string::npos) << html;
  const nlohmann::ordered_json d = deck_diagnosis_json(&run);
  ASSERT_EQ(d["outliers"].size(), 2u);
  EXPECT_EQ(d["outliers"][0]["evidence"], kHotGpu3);
  EXPECT_EQ(d["outliers"][1]["subject"], "node3 GPU 1");
  EXPECT_TRUE(d["outliers"][1]["rank"].is_null());
  const std::string deck = deck_html_of(d);
  EXPECT_NE(deck.find(escape_xml(std::string("not the fabric; ") + kHotGpu3) + "</p>"), std::string::npos) << deck;
  EXPECT_NE(deck.find(escape_xml(kGpu1) + "</p>"), std::string::npos) << deck;
}

// No rank has a GPU timeline (a CPU run, or TraceLens' workbooks): the GPUs' own
// findings need no trace and are still shown.
TEST(TelemetryDiagnosis, GpuFindingsShownWhereNoRankIsDiagnosed) {
  const metrics::RunMetrics run = joined_run(false);
  const std::string html = html_of(run);
  EXPECT_NE(html.find("No diagnosis: no rank has kernels on a GPU timeline."), std::string::npos) << html;
  EXPECT_NE(html.find(escape_xml(kGpu1) + "</p>"), std::string::npos) << html;
  EXPECT_NE(html.find("node3 GPU 3: out of line"), std::string::npos) << html;
  const nlohmann::ordered_json d = deck_diagnosis_json(&run);
  EXPECT_EQ(d["outliers"].size(), 2u);
  EXPECT_NE(deck_html_of(d).find(escape_xml(kGpu1)), std::string::npos);
}

TEST(TelemetryDiagnosis, JsonFindingsHaveEvidenceAndPassTheSchema) {
  const result_json::ordered_json j = result_json::diagnosis_json(joined_run());
  ASSERT_EQ(j["outliers"].size(), 2u);
  EXPECT_EQ(j["outliers"][0]["evidence"], kHotGpu3);
  EXPECT_EQ(j["outliers"][0]["of_gpu"], false);
  const auto& gpu = j["outliers"][1];
  EXPECT_EQ(gpu["of_gpu"], true);
  EXPECT_EQ(gpu["unit"], "signs");
  EXPECT_EQ(gpu["value"], 1);
  EXPECT_TRUE(gpu["median"].is_null());
  EXPECT_TRUE(gpu["ratio_to_median"].is_null());
  aorta::testing::TempDir dir;
  EXPECT_TRUE(aorta::testing::passes_report_schema(dir.write("d.json", result_json::json_text(j)), "diagnosis"));
  // Without telemetry a finding's evidence is null, and the schema still holds.
  metrics::RunMetrics plain = joined_run();
  plain.telemetry.reset();
  metrics::join_telemetry(plain);
  const result_json::ordered_json p = result_json::diagnosis_json(plain);
  ASSERT_EQ(p["outliers"].size(), 1u);
  EXPECT_TRUE(p["outliers"][0]["evidence"].is_null());
  EXPECT_TRUE(aorta::testing::passes_report_schema(dir.write("p.json", result_json::json_text(p)), "diagnosis"));
}

}  // namespace
}  // namespace aorta::report
