// What compare reads of a report's diagnosis object, through the report reader: the
// figures by hand (medians of two ranks), each shape that is not a report's named, the
// limit on the values kept; and the diagnosis rows as --output JSON.
#include "report/compare_diagnosis.h"

#include <gtest/gtest.h>

#include "report/run_figures.h"

namespace aorta::report {
namespace {

metrics::RunFigures figures_of(const std::string& diagnosis, const ReportLimits& limits = {}) {
  auto got = figures_from_json(R"({"performance": {}, "diagnosis": )" + diagnosis + "}", "r.json", limits);
  EXPECT_TRUE(got.ok()) << got.error().message;
  return got.ok() ? *got : metrics::RunFigures{};
}

// GEMM 0.2 and 0.4: median 0.3; other compute on rank 1 only, 0.1 and 0: 0.05.
// All-reduce's largest size 4194304 B: 40 and 30 GB/s, lowest 30 (the 1024 B 1 GB/s
// is another size). The all-gather has no bus bandwidth (null): no row. A diagnosis
// elsewhere than at the top is not the run's.
TEST(CompareDiagnosis, ReadsTheFiguresAParsedRunGives) {
  const auto f = figures_of(R"({"ranks": [
      {"rank": 0, "kernel_classes": [{"class": "gemm", "kernels": 3, "time_us": 20, "share_of_window": 0.2}],
       "collectives": [{"collective": "allreduce", "message_bytes": 4194304, "busbw_gbps": 40},
                       {"collective": "allreduce", "message_bytes": 1024, "busbw_gbps": 1}]},
      {"rank": 1, "kernel_classes": [{"class": "gemm", "share_of_window": 0.4},
                                     {"class": "other_compute", "share_of_window": 0.1}],
       "collectives": [{"collective": "allreduce", "message_bytes": 4194304, "busbw_gbps": 30},
                       {"collective": "_allgather_base", "message_bytes": 8, "busbw_gbps": null}]}],
      "outliers": [], "other": {"diagnosis": {"ranks": 7}}})");
  ASSERT_TRUE(f.diagnosis.has_value()) << f.no_diagnosis;
  EXPECT_EQ(f.diagnosis->class_shares.size(), 2u);
  EXPECT_DOUBLE_EQ(f.diagnosis->class_shares.at("gemm"), 0.3);
  EXPECT_DOUBLE_EQ(f.diagnosis->class_shares.at("other_compute"), 0.05);
  ASSERT_EQ(f.diagnosis->busbw.size(), 1u);
  EXPECT_EQ(f.diagnosis->busbw.at("allreduce").bytes, 4194304u);
  EXPECT_DOUBLE_EQ(f.diagnosis->busbw.at("allreduce").lowest_gbps, 30);
}

TEST(CompareDiagnosis, WhatIsNotADiagnosisSaysWhy) {
  const std::pair<std::string, std::string> cases[] = {
      {"null", "diagnosis.ranks is not a list"},
      {R"({"ranks": {}})", "diagnosis.ranks is not a list"},
      {R"({"ranks": []})", "no rank has a GPU-timeline diagnosis"},
      {R"({"ranks": [{"kernel_classes": []}]})", "diagnosis.ranks[0].collectives is not a list"},
      {R"({"ranks": [{"kernel_classes": [], "collectives": []}, 3]})", "diagnosis.ranks[1].kernel_classes is not a list"},
      {R"({"ranks": [{"kernel_classes": [{"class": "gemm", "share_of_window": "0.2"}], "collectives": []}]})",
       "diagnosis.ranks[0].kernel_classes[0] has no class name and share_of_window number"},
      {R"({"ranks": [{"kernel_classes": [], "collectives": [{"collective": "allreduce", "message_bytes": -4,
          "busbw_gbps": 1}]}]})",
       "diagnosis.ranks[0].collectives[0] has no collective name, message_bytes and busbw_gbps"},
  };
  for (const auto& [diagnosis, why] : cases) {
    const auto f = figures_of(diagnosis);
    EXPECT_FALSE(f.diagnosis.has_value()) << diagnosis;
    EXPECT_EQ(f.no_diagnosis, why) << diagnosis;
  }
  auto absent = figures_from_json(R"({"performance": {}})", "r.json");
  ASSERT_TRUE(absent.ok());
  EXPECT_EQ(absent->no_diagnosis, "no \"diagnosis\" object (a report from before the diagnosis)");
}

// The values kept below the diagnosis: "ranks", "x" and x's 3 numbers are 5.
TEST(CompareDiagnosis, TheValuesKeptAreLimited) {
  const std::string text = R"({"performance": {}, "diagnosis": {"ranks": [], "x": [1, 2, 3]}})";
  EXPECT_TRUE(figures_from_json(text, "r.json", {.max_diagnosis_values = 5}).ok());
  auto refused = figures_from_json(text, "r.json", {.max_diagnosis_values = 4});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "r.json: holds more than 4 values in its diagnosis (a report holds about 100 a rank)");
}

TEST(CompareDiagnosis, RowsAsJson) {
  metrics::Comparison c;
  c.class_shares.push_back({"gemm", 0.25, 0.2, -0.05, 0.8, "changed"});
  c.busbw.push_back({"allreduce", 4194304, 4194304, 40, 30, -10, 0.75, "worse"});
  const nlohmann::ordered_json d = diagnosis_comparison_json(c);
  EXPECT_TRUE(d["note"].is_null());
  EXPECT_EQ(d["kernel_classes"][0].dump(),
            R"({"class":"gemm","baseline_share":0.25,"candidate_share":0.2,"change":-0.05,"ratio":0.8,"verdict":"changed"})");
  EXPECT_EQ(d["busbw"][0]["better"], "higher");
  EXPECT_EQ(d["busbw"][0]["baseline_message_bytes"], 4194304);
  EXPECT_EQ(d["busbw"][0]["verdict"], "worse");
  metrics::Comparison none;
  none.no_diagnosis = "baseline b.json: no rank has a GPU-timeline diagnosis";
  EXPECT_EQ(diagnosis_comparison_json(none)["note"], none.no_diagnosis);
  EXPECT_TRUE(diagnosis_comparison_json(none)["busbw"].empty());
}

// A hostile diagnosis object of 300000 keys (found by review): kept in a map, each key
// costs a lookup of log n, so it is read at once and named as not the report's shape.
// (An nlohmann::ordered_json object scans every key it has: this case took minutes.)
TEST(CompareDiagnosis, AnObjectOfManyKeysIsReadAtOnce) {
  std::string many = "{";
  for (int i = 0; i < 300000; ++i) many += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":0";
  many += "}";
  EXPECT_EQ(figures_of(many).no_diagnosis, "diagnosis.ranks is not a list");
}

}  // namespace
}  // namespace aorta::report
