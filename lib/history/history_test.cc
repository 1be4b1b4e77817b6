#include "history/history.h"

#include <gtest/gtest.h>

#include "history/history_json.h"
#include "tests/history_fixture.h"

namespace aorta::history {
namespace {

using testing::outlier;
using testing::sample_report;
using testing::TempDir;
using testing::write_run;

constexpr long kNight = 86400;

// Six nightly runs of the real sample report, run4 10 % slower; node2 rank 1 an
// outlier in runs 2 to 5 (4 of the last 5); one damaged report beside them.
struct Nights {
  TempDir root;
  double base = 0;
  Nights() {
    nlohmann::json r = sample_report();
    base = r["performance"]["avg_iteration_time_ms"].get<double>();
    for (int i = 1; i <= 6; ++i) {
      nlohmann::json run = r;
      if (i == 4) run["performance"]["avg_iteration_time_ms"] = base * 1.10;
      if (i >= 2 && i <= 5) run["diagnosis"]["outliers"].push_back(outlier("node2", 1));
      write_run(root, "run" + std::to_string(i), run, kNight * i);
    }
    root.write("run9/aorta_benchmark_report.json", "{\"status\": \"comple");
  }
};

// A report's started_at orders the runs, whatever the files' times say (a copy that
// lost them); a report without one falls back to when it was written.
TEST(History, RunsAreOrderedByWhenTheyStarted) {
  TempDir root;
  nlohmann::json r = sample_report();
  r["started_at"] = "2026-12-02T01:00:00Z";
  write_run(root, "b_second", r, kNight * 1);
  r["started_at"] = "2026-12-01T01:00:00Z";
  write_run(root, "a_first", r, kNight * 2);  // written later, started earlier
  auto rr = read_run_reports(root.path());
  ASSERT_TRUE(rr) << rr.error().describe();
  ASSERT_EQ(rr->runs.size(), 2u);
  EXPECT_EQ(rr->runs[0].run, "a_first");
  EXPECT_EQ(*rr->runs[0].started, 1796086800.0);  // 2026-12-01T01:00:00Z
}

TEST(History, TheRegressedRunIsListedWithItsChangeAgainstTheRollingBaseline) {
  Nights n;
  auto rr = read_run_reports(n.root.path());
  ASSERT_TRUE(rr) << rr.error().describe();
  ASSERT_EQ(rr->runs.size(), 6u);
  EXPECT_EQ(rr->runs.front().run, "run1");  // by when each report was written
  ASSERT_EQ(rr->unreadable.size(), 1u);
  EXPECT_EQ(rr->unreadable[0].report, n.root.path() / "run9/aorta_benchmark_report.json");
  EXPECT_NE(rr->unreadable[0].why.find("damaged JSON"), std::string::npos) << rr->unreadable[0].why;

  const History h = analyse(*rr, {});
  ASSERT_EQ(h.changes.size(), 1u);
  const Trend& t = h.trends[h.changes[0].trend];
  const TrendPoint& p = t.points[h.changes[0].point];
  EXPECT_EQ(t.metric->key, std::string("avg_iteration_time_ms"));
  EXPECT_EQ(rr->runs[p.run].run, "run4");
  EXPECT_DOUBLE_EQ(*p.baseline, n.base);
  EXPECT_EQ(p.baseline_count, 3u);
  EXPECT_NEAR(*worse_by(*p.judged), 10.0, 1e-9);
  EXPECT_EQ(p.judged->verdict, "worse");
  EXPECT_TRUE(h.regressions.empty());  // run6, the newest, is back at the median
}

TEST(History, ANodeAndARankNamedIn4OfTheLast5RunsComeFirstWithTheirRuns) {
  Nights n;
  auto rr = read_run_reports(n.root.path());
  ASSERT_TRUE(rr);
  const History h = analyse(*rr, {.last = 5});
  EXPECT_EQ(h.counted_runs, 5u);
  ASSERT_EQ(h.named.size(), 2u);
  EXPECT_EQ(h.named[0].subject, "node2");
  EXPECT_EQ(h.named[0].kind, "node");
  EXPECT_EQ(h.named[1].subject, "node2 rank 1 (GPU 1)");
  for (const auto& named : h.named) {
    ASSERT_EQ(named.runs.size(), 4u);
    EXPECT_EQ(rr->runs[named.runs.front()].run, "run2");
    EXPECT_EQ(rr->runs[named.runs.back()].run, "run5");
    EXPECT_EQ(named.sources, std::vector<std::string>{"diagnosis"});
  }
  const auto doc = history_json(n.root.path(), *rr, h);
  EXPECT_EQ(doc["named"][0]["runs"], 4);
  EXPECT_EQ(doc["named"][0]["of_last"], 5);
  EXPECT_EQ(doc["changes"][0]["run"], "run4");
  EXPECT_EQ(doc["changes"][0]["direction"], "worse");
}

// A GPU named by its telemetry (a diagnosis finding of_gpu, no rank) in 3 runs, and by a
// failed ECC gate whose subject is that GPU in one more: "node3 GPU 3" in 4 of the last 5,
// after its node, from both sources.
TEST(History, AGpuNamedByItsTelemetryAndItsGateIsCountedAsTheGpu) {
  TempDir root;
  nlohmann::json r = sample_report();
  for (int i = 1; i <= 5; ++i) {
    nlohmann::json run = r;
    if (i <= 3) {
      auto gpu = outlier("node3", 0);
      gpu["rank"] = nullptr;
      gpu["gpu"] = 3;
      gpu["of_gpu"] = true;
      run["diagnosis"]["outliers"].push_back(gpu);
    }
    if (i == 5)
      run["gates"].push_back({{"key", "max_gpu_uncorrectable_errors"}, {"outcome", "failed"},
                              {"subject", {{"node", "node3"}, {"rank", nullptr}, {"gpu", 3}, {"text", "node3 GPU 3"}}}});
    write_run(root, "run" + std::to_string(i), run, kNight * i);
  }
  auto rr = read_run_reports(root.path());
  ASSERT_TRUE(rr);
  const History h = analyse(*rr, {.last = 5});
  ASSERT_EQ(h.named.size(), 2u);
  EXPECT_EQ(h.named[0].subject, "node3");
  EXPECT_EQ(h.named[1].subject, "node3 GPU 3");
  EXPECT_EQ(h.named[1].kind, "gpu");
  EXPECT_EQ(h.named[1].runs.size(), 4u);
  EXPECT_EQ(h.named[1].sources, (std::vector<std::string>{"diagnosis", "gate max_gpu_uncorrectable_errors"}));
}

TEST(History, MaxRegressionGatesTheNewestRunOfAGroupBeyondItsLimit) {
  TempDir root;
  nlohmann::json r = sample_report();
  const double base = r["performance"]["avg_iteration_time_ms"].get<double>();
  for (int i = 1; i <= 4; ++i) {
    if (i == 4) r["performance"]["avg_iteration_time_ms"] = base * 1.08;
    write_run(root, "run" + std::to_string(5 - i), r, kNight * i);  // names against the time order
  }
  auto rr = read_run_reports(root.path());
  ASSERT_TRUE(rr);
  const History over = analyse(*rr, {.max_regression = 5.0});
  ASSERT_EQ(over.regressions.size(), 1u);
  const Trend& t = over.trends[over.regressions[0].trend];
  EXPECT_EQ(t.metric->key, std::string("avg_iteration_time_ms"));
  EXPECT_EQ(rr->runs[t.points[over.regressions[0].point].run].run, "run1");  // written last
  EXPECT_TRUE(analyse(*rr, {.max_regression = 10.0}).regressions.empty());
}

TEST(History, AFailedRunIsInNoBaselineAndGroupsDoNotMix) {
  TempDir root;
  nlohmann::json r = sample_report();
  const double base = r["performance"]["avg_iteration_time_ms"].get<double>();
  nlohmann::json failed = r, other = r;
  failed["validation_passed"] = false;
  failed["performance"]["avg_iteration_time_ms"] = base * 3;
  other["cluster"]["gpus_per_node"] = 8;
  other["performance"]["avg_iteration_time_ms"] = base * 5;
  write_run(root, "a", r, kNight);
  write_run(root, "b", failed, 2 * kNight);
  write_run(root, "c", other, 3 * kNight);
  write_run(root, "d", r, 4 * kNight);
  auto rr = read_run_reports(root.path());
  ASSERT_TRUE(rr);
  const History h = analyse(*rr, {});
  EXPECT_NE(rr->runs[0].group, rr->runs[2].group);
  for (const auto& t : h.trends)
    for (const auto& p : t.points)
      if (rr->runs[p.run].run == "d" && t.metric->key == std::string("avg_iteration_time_ms")) {
        EXPECT_DOUBLE_EQ(*p.baseline, base);  // a's alone: b failed, c is another group
        EXPECT_EQ(p.baseline_count, 1u);
      }
  ASSERT_EQ(h.changes.size(), 1u);  // b, 200 % worse; d is the same as a
  EXPECT_EQ(rr->runs[h.trends[h.changes[0].trend].points[h.changes[0].point].run].run, "b");
}

TEST(History, AGroupsHistoryHasItsRunsAloneForTheDecksRecentRuns) {
  TempDir root;
  nlohmann::json r = sample_report(), other = r;
  other["cluster"]["gpus_per_node"] = 8;
  write_run(root, "a", r, kNight);
  write_run(root, "b", other, 2 * kNight);
  write_run(root, "c", r, 3 * kNight);
  auto g = group_history(root.path(), group_of(r.dump()), {});
  ASSERT_TRUE(g) << g.error().describe();
  ASSERT_EQ(g->runs.runs.size(), 2u);
  EXPECT_EQ(g->runs.runs[1].run, "c");
  EXPECT_EQ(g->history.trends.front().points.size(), 2u);
  EXPECT_FALSE(group_history(root.path(), "aorta_single, 9 nodes", {}));
}

TEST(History, ForeignAndDamagedReportsAreNamedAndARootWithoutOneIsAnError) {
  TempDir root;
  root.write("x/aorta_benchmark_report.json", R"({"status": "completed", "tool": {"name": "other"}})");
  auto none = read_run_reports(root.path());
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().context, root.path().string());
  EXPECT_NE(none.error().message.find("no readable"), std::string::npos) << none.error().message;
  write_run(root, "nightly/y", sample_report(), kNight);  // an output_dir of run folders
  auto rr = read_run_reports(root.path());
  ASSERT_TRUE(rr);
  ASSERT_EQ(rr->runs.size(), 1u);
  EXPECT_EQ(rr->runs[0].run, "nightly/y");
  ASSERT_EQ(rr->unreadable.size(), 1u);
  EXPECT_NE(rr->unreadable[0].why.find("not an aorta_suite report"), std::string::npos);
}

}  // namespace
}  // namespace aorta::history
