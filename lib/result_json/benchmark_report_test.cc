// aorta_benchmark_report.json for a run that failed: the traces it left are still
// parsed, and the report says the run failed (audit S10, R1).
#include "result_json/benchmark_report.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "stages/specs.h"
#include "tests/fake_transport.h"
#include "tests/report_schema.h"
#include "tests/temp_dir.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::result_json {
namespace {

namespace fs = std::filesystem;

const fs::path kData = AORTA_TEST_DATA_DIR;

// Two real ranks' traces in <root>/combined_traces, parsed by test_parse_results into
// `state` (parsing reaches no node).
stages::StageResult parse_two_ranks(const fs::path& root, job::RunState& state, const config::Variant& v,
                                    const config::Cluster& cluster) {
  const fs::path traces = root / "combined_traces";
  for (const auto& [node, rank] : {std::pair{"node_0", "rank0"}, std::pair{"node_1", "rank1"}}) {
    fs::path to = traces / node / "torch_profiler" / rank;
    fs::create_directories(to);
    fs::copy_file(kData / (std::string("h200-torch2.11-kineto-nccl_") + rank + ".json.gz"), to / "trace.json.gz");
  }
  aorta::testing::FakeTransport fake;
  job::NodeExec exec(fake, v, cluster);
  state.artifacts["torch_traces"] = traces;
  stages::StageContext ctx{exec, state, [](const std::string&) {}};
  return stages::kParseResults.body(ctx);
}

TEST(BenchmarkReport, FailedRunIsParsedFromItsTracesAndReportedAsFailed) {
  aorta::testing::TempDir dir;
  config::Variant v;
  config::Cluster cluster;
  cluster.nodes = {{"node-a", "", ""}, {"node-b", "", ""}};
  job::RunState state;
  state.run_id = "0123456789abcdef0123456789abcdef";
  state.status = job::RunStatus::kFailed;
  state.error_message = "node b timed out";
  state.output_root = dir.path();

  stages::StageResult out = parse_two_ranks(dir.path(), state, v, cluster);
  EXPECT_FALSE(out.failed()) << out.failures.front();
  ASSERT_FALSE(out.log.empty());
  EXPECT_EQ(out.log.front(), "Run did not succeed: node b timed out");
  ASSERT_TRUE(state.result.has_value());

  auto report = benchmark_report(state, v, cluster, false);
  EXPECT_EQ(report["status"], "failed");
  EXPECT_EQ(report["validation_passed"], false);
  EXPECT_EQ(report["error_message"], "node b timed out");
  EXPECT_EQ(report["cluster"]["nodes"], 2);
  ASSERT_EQ(report["per_rank_summary"].size(), 2u);
  EXPECT_EQ(report["per_rank_summary"][0]["rank"], 0);
  EXPECT_EQ(report["per_rank_summary"][1]["rank"], 1);
  EXPECT_GT(report["performance"]["avg_compute_ratio"].get<double>(), 0);
  EXPECT_FALSE(report.contains("telemetry"));  // no node sampled
}

// Issue 47: the sample files the collection brought home (<run folder>/telemetry) are
// read with the traces; the report carries their summary and passes the schema.
TEST(BenchmarkReport, TelemetryOfTheRunFolderIsReadAndReported) {
  aorta::testing::TempDir dir;
  fs::copy(kData / "telemetry/run", dir.path() / "telemetry");
  config::Variant v;
  v.gpus_per_node = 2;
  config::Cluster cluster;
  cluster.nodes = {{"node1", "", ""}, {"node2", "", ""}, {"node3", "", ""}};
  job::RunState state;
  state.run_id = "0123456789abcdef0123456789abcdef";
  state.status = job::RunStatus::kCompleted;
  state.output_root = dir.path();
  stages::StageResult out = parse_two_ranks(dir.path(), state, v, cluster);
  ASSERT_TRUE(state.result && state.result->telemetry) << ::testing::PrintToString(out.log);
  EXPECT_EQ(state.result->telemetry->gpus.size(), 6u);
  EXPECT_NE(std::find(out.log.begin(), out.log.end(), "GPU telemetry: 3 node(s), 6 GPU(s)"), out.log.end());
  const auto report = benchmark_report(state, v, cluster, true);
  ASSERT_TRUE(report.contains("telemetry"));
  EXPECT_EQ(report["telemetry"]["gpus"][1]["node"], "node1");
  EXPECT_EQ(report["telemetry"]["gpus"][1]["throttle_share"]["socket_thermal"], 0.4);
  EXPECT_TRUE(aorta::testing::passes_report_schema(dir.write("report.json", json_text(report))));
}

// Issue 45, 7: `configuration` names NCCL channels and the RCCL branch only on a run
// that builds RCCL or has GPU ranks; a CPU run (RCCL build skipped, CPU timelines) has neither.
TEST(BenchmarkReport, ConfigurationHasNoRcclFieldsOnACpuRun) {
  config::Variant v;
  v.skip_rccl_build = true;
  config::Cluster cluster;
  job::RunState state;
  metrics::RankMetrics rank;
  rank.parser = metrics::ParserPath::kCpuTimeline;
  rank.total_time_us = 1000;
  state.result = metrics::aggregate({rank}).value();
  aorta::testing::TempDir dir;
  const auto configuration = [&] { return benchmark_report(state, v, cluster, true)["configuration"]; };
  EXPECT_EQ(configuration().dump(), R"({"compute_channels":null})");
  EXPECT_TRUE(aorta::testing::passes_report_schema(dir.write("cpu.json", json_text(configuration())), "configuration"));
  state.result->per_rank[0].parser = metrics::ParserPath::kGpuTimeline;
  EXPECT_EQ(configuration().dump(), R"({"nccl_channels":112,"compute_channels":null,"rccl_branch":"develop"})");
  EXPECT_TRUE(aorta::testing::passes_report_schema(dir.write("gpu.json", json_text(configuration())), "configuration"));
  state.result->per_rank[0].parser = metrics::ParserPath::kCpuTimeline;
  v.skip_rccl_build = false;
  EXPECT_TRUE(configuration().contains("rccl_branch"));
}

// When the run started, in UTC to the second, so history orders runs as they ran;
// null for a run that never started.
TEST(BenchmarkReport, StartedAtIsTheRunsStartInUtc) {
  config::Variant v;
  config::Cluster cluster;
  job::RunState state;
  EXPECT_TRUE(benchmark_report(state, v, cluster, false)["started_at"].is_null());
  state.started_at = std::chrono::system_clock::from_time_t(1796470000);  // 2026-12-05T11:26:40Z
  EXPECT_EQ(benchmark_report(state, v, cluster, false)["started_at"], "2026-12-05T11:26:40Z");
  aorta::testing::TempDir dir;
  EXPECT_TRUE(aorta::testing::passes_report_schema(
      dir.write("s.json", json_text(benchmark_report(state, v, cluster, false)["started_at"])), "started_at"));
}

// Which traces the report's own folder holds: all by default; with fewer archived,
// the kept copies by name and how many stay only on their nodes.
TEST(BenchmarkReport, TracesSayWhereTheyWereReadAndWhereTheyAreNow) {
  config::Variant v;
  config::Cluster cluster;
  job::RunState state;
  const auto all = benchmark_report(state, v, cluster, true)["traces"];
  EXPECT_EQ(all, nlohmann::ordered_json::parse(
                     R"({"analyzed_on": "head", "archive": "all", "kept_here": null, "left_on_nodes": 0})"));
  v.analysis.where = "nodes";
  v.analysis.archive_traces = "outliers";
  state.trace_archive = job::RunState::TraceArchive{{"/runs/r/traces/node1/rank3.json.gz"}, 15};
  const auto some = benchmark_report(state, v, cluster, true)["traces"];
  EXPECT_EQ(some, nlohmann::ordered_json::parse(R"({"analyzed_on": "nodes", "archive": "outliers",
      "kept_here": ["/runs/r/traces/node1/rank3.json.gz"], "left_on_nodes": 15})"));
  aorta::testing::TempDir dir;
  EXPECT_TRUE(aorta::testing::passes_report_schema(dir.write("t.json", json_text(some)), "traces"));
}

}  // namespace
}  // namespace aorta::result_json
