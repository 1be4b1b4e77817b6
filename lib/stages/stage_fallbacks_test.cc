// What the parse and benchmark stages do when a step gives nothing or fails: the
// TraceLens reports fall back to the raw traces, an aggregation that gives no result
// fails the parse, and a failed benchmark poll still stops the training and scans the
// kernel logs. Driven through the shared harness (tests/stage_harness.h).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "metrics/run_metrics.h"
#include "telemetry/sampler_script.h"
#include "tests/stage_harness.h"
#include "tests/temp_dir.h"
#include "tests/workbook_fixture.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::stages {
namespace {

namespace fs = std::filesystem;
using metrics::ParserPath;

// The parser of each rank of the run's result, in rank order.
std::vector<ParserPath> result_parsers(const job::RunState& state) {
  std::vector<ParserPath> parsers;
  for (const auto& r : state.result->per_rank) parsers.push_back(r.parser);
  return parsers;
}

// --- parse_results ----------------------------------------------------------

// Audit S11: on one node, a TraceLens analysis folder that holds no report, or only
// one that cannot be read, yields nothing, and the raw traces give the result; the
// unreadable report is named. With TraceLens's own reports (made from these traces)
// the same folder is the source: the fallback is from a folder the parse does read.
TEST(StageBodies, ParseFallsBackToTheTracesWhenNoTraceLensReportCanBeRead) {
  Harness h;
  h.cluster.nodes.resize(1);  // the Excel source is single-node only
  h.v.gpus_per_node = 2;
  aorta::testing::TempDir dir;
  const fs::path reports = dir.path() / "tracelens_analysis" / "individual_reports";
  fs::create_directories(reports);
  for (const char* rank : {"rank0", "rank1"}) {
    fs::create_directories(dir.path() / "traces" / rank);
    fs::copy_file(fs::path(AORTA_TEST_DATA_DIR) / fmt::format("h200-aorta-overlap_{}.pt.trace.json.gz", rank),
                  dir.path() / "traces" / rank / "t.pt.trace.json.gz");
  }
  h.state.status = job::RunStatus::kCompleted;
  h.state.artifacts["torch_traces"] = dir.path() / "traces";
  h.state.artifacts["tracelens_analysis"] = dir.path() / "tracelens_analysis";
  const std::vector<ParserPath> from_traces = {ParserPath::kGpuTimeline, ParserPath::kGpuTimeline};

  StageResult none = h.run(stages::kParseResults);  // no report: the traces, without a word (CVS warns: not kept)
  EXPECT_TRUE(none.failures.empty()) << joined(none.failures);
  EXPECT_FALSE(contains(joined(none.log), "TraceLens")) << joined(none.log);
  ASSERT_TRUE(h.state.result.has_value()) << joined(none.log);
  EXPECT_EQ(result_parsers(h.state), from_traces);

  dir.write("tracelens_analysis/individual_reports/perf_rank0.xlsx", "cut short");
  h.state.result.reset();
  StageResult unreadable = h.run(stages::kParseResults);
  EXPECT_TRUE(unreadable.failures.empty()) << joined(unreadable.failures);
  ASSERT_TRUE(h.state.result.has_value()) << joined(unreadable.log);
  EXPECT_EQ(result_parsers(h.state), from_traces);
  const std::string log = joined(unreadable.log);
  EXPECT_TRUE(contains(log, "Failed to parse perf_rank0.xlsx: " + (reports / "perf_rank0.xlsx").string() +
                                ": not a readable workbook (zip)")) << log;
  EXPECT_TRUE(contains(log, "TraceLens report error: No reports could be parsed\n")) << log;
  EXPECT_FALSE(contains(log, "Metrics from the TraceLens Excel reports")) << log;

  for (const char* name : {"perf_rank0.xlsx", "perf_rank1.xlsx"})
    fs::copy_file(fs::path(AORTA_TEST_DATA_DIR) / "tracelens" / name, reports / name,
                  fs::copy_options::overwrite_existing);
  h.state.result.reset();
  StageResult excel = h.run(stages::kParseResults);
  EXPECT_TRUE(excel.failures.empty()) << joined(excel.failures);
  ASSERT_TRUE(h.state.result.has_value()) << joined(excel.log);
  EXPECT_EQ(result_parsers(h.state), (std::vector<ParserPath>{ParserPath::kTracelensExcel, ParserPath::kTracelensExcel}));
}

// Audit S12, the aggregation branch: ranks that parse but cannot be aggregated (a
// TraceLens report whose computation outlasts the whole iteration) leave no result,
// and the stage fails in the reference's words with the reason. The same report with
// the computation inside the iteration gives a result.
TEST(StageBodies, ParseFailsWithoutAResultWhenAggregationGivesNone) {
  Harness h;
  h.cluster.nodes.resize(1);
  h.v.gpus_per_node = 1;
  aorta::testing::TempDir dir;
  const fs::path report = dir.path() / "tracelens_analysis" / "individual_reports" / "perf_rank0.xlsx";
  fs::create_directories(report.parent_path());
  aorta::testing::write_gpu_timeline_report(
      report, {{"total_time", 10}, {"computation_time", 20}, {"exposed_comm_time", 0}, {"total_comm_time", 0}});
  h.state.status = job::RunStatus::kCompleted;
  h.state.artifacts["tracelens_analysis"] = dir.path() / "tracelens_analysis";
  StageResult out = h.run(stages::kParseResults);
  EXPECT_EQ(out.failures,
            std::vector<std::string>{"Aorta aggregation produced no benchmark result: avg_compute_ratio = 2 is outside 0..1"})
      << joined(out.log);
  EXPECT_FALSE(h.state.result.has_value());

  aorta::testing::write_gpu_timeline_report(
      report, {{"total_time", 10}, {"computation_time", 5}, {"exposed_comm_time", 0}, {"total_comm_time", 0}});
  StageResult good = h.run(stages::kParseResults);
  EXPECT_TRUE(good.failures.empty()) << joined(good.failures);
  ASSERT_TRUE(h.state.result.has_value());
  EXPECT_DOUBLE_EQ(h.state.result->avg_compute_ratio, 0.5);
}

// --- run_benchmark ----------------------------------------------------------

// Where `needle` is first and last among the commands a host was sent (-1: never).
std::pair<long, long> sent_at(const aorta::testing::FakeTransport& fake, const std::string& host,
                              const std::string& needle) {
  const auto sent = fake.commands(host);
  long first = -1, last = -1;
  for (size_t i = 0; i < sent.size(); ++i)
    if (contains(sent[i], needle)) {
      if (first < 0) first = static_cast<long>(i);
      last = static_cast<long>(i);
    }
  return {first, last};
}

// The training was stopped once on every node after its last poll, then the node's
// kernel log read once.
void expect_stopped_then_scanned(const Harness& h) {
  for (const char* host : {"n1", "n2"}) {
    const auto [first_poll, last_poll] = sent_at(h.fake, host, "cvs_aorta_exit=$(cat ");
    EXPECT_GE(first_poll, 0) << host;
    EXPECT_EQ(h.fake.commands_with(host, "kill -TERM").size(), 1u) << host;
    EXPECT_EQ(h.fake.commands_with(host, "dmesg --time-format iso").size(), 1u) << host;
    const long stop = sent_at(h.fake, host, "kill -TERM").first, scan = sent_at(h.fake, host, "dmesg").first;
    EXPECT_LT(last_poll, stop) << host;
    EXPECT_LT(stop, scan) << host;
  }
}

// The benchmark on two nodes, through the poll: every node starts, and n1's kernel
// log holds a GPU reset in the run's window (1700000000 is 2023-11-14T22:13:20Z).
void script_a_started_run(Harness& h) {
  h.v.container.runtime = config::RuntimeKind::kNone;
  h.v.multi_node.master_port = 29500;
  h.fake.on(kAny, "date +%s.%N", 0, "1700000000.25\n");
  h.fake.on(kAny, "CVS_AORTA_PID=", 0, "CVS_AORTA_PID=555\n");
  h.fake.on("n1", "dmesg --time-format iso", 0, "2023-11-14T22:13:20,500000+00:00 amdgpu: GPU reset begin!\n");
}

const char* const kKernelError =
    "ERROR - Failure pattern *** 2023-11-14T22:13:20,500000+00:00 amdgpu: GPU reset begin! *** seen in Dmesg on node n1: GPU Reset";

// Audit S14: a poll that fails (n2's training exits 1) is the stage's first failure,
// and still the training is stopped on every node and every node's kernel log scanned
// after it; the kernel error found then is reported too.
TEST(StageBodies, BenchmarkPollFailureStillStopsTheTrainingAndScansTheKernelLogs) {
  Harness h;
  script_a_started_run(h);
  h.fake.on("n1", "cvs_aorta_exit=$(cat ", 0, "0\n");  // the exit files
  h.fake.on("n2", "cvs_aorta_exit=$(cat ", 0, "1\n");
  StageResult out = h.run(stages::kRunBenchmark);
  EXPECT_EQ(h.state.status, job::RunStatus::kFailed);
  EXPECT_EQ(h.state.error_message, "Aorta command failed on nodes: {n2: 1}");
  EXPECT_EQ(out.failures, (std::vector<std::string>{"Aorta command failed on nodes: {n2: 1}", kKernelError}));
  expect_stopped_then_scanned(h);
}

// The same when the poll times out (no node writes its exit file within 1 s).
TEST(StageBodies, BenchmarkTimeoutStillStopsTheTrainingAndScansTheKernelLogs) {
  Harness h;
  script_a_started_run(h);
  h.v.timeout_seconds = 1;
  StageResult out = h.run(stages::kRunBenchmark);
  EXPECT_EQ(h.state.status, job::RunStatus::kTimeout);
  EXPECT_EQ(out.failures, (std::vector<std::string>{"Aorta did not complete within 1s", kKernelError}));
  expect_stopped_then_scanned(h);
}

// Issue 47: the GPU sampler starts after the training and, whatever the outcome (here a
// timeout), is asked to end and stopped after the training's stop, before the kernel
// scan; each node without a tool says so once in the stage log.
TEST(StageBodies, BenchmarkSamplesBesideTheTraining) {
  Harness h;
  script_a_started_run(h);
  h.v.telemetry.enabled = true;
  h.v.timeout_seconds = 1;
  h.fake.on(kAny, "CVS_AORTA_TELEMETRY_HEADER=", 0,
            "CVS_AORTA_PID=556\nCVS_AORTA_TELEMETRY_HEADER=#aorta-telemetry v1 host=n tool=none interval=1\n");
  StageResult out = h.run(stages::kRunBenchmark);
  EXPECT_EQ(h.state.status, job::RunStatus::kTimeout);
  EXPECT_EQ(std::count(out.log.begin(), out.log.end(), telemetry::no_tool_line({"n1", "n2"})), 1);
  for (const char* host : {"n1", "n2"}) {
    const long training = sent_at(h.fake, host, "nohup setsid bash").first;
    const long sampler = sent_at(h.fake, host, "telemetry.sh").first;
    const long training_stop = sent_at(h.fake, host, "kill -TERM").first;
    const long asked = sent_at(h.fake, host, "touch ").first;
    const long sampler_stop = sent_at(h.fake, host, "telemetry.pid").second;
    const long scan = sent_at(h.fake, host, "dmesg").first;
    EXPECT_GE(training, 0) << host;
    EXPECT_LT(training, sampler) << host;
    EXPECT_LT(sampler, training_stop) << host;
    EXPECT_LT(training_stop, asked) << host;
    EXPECT_LT(asked, sampler_stop) << host;
    EXPECT_LT(sampler_stop, scan) << host;
  }
}

}  // namespace
}  // namespace aorta::stages
