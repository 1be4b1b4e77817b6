// Node-side analysis: a node's rank results survive the trip to the head to the bit,
// and the head's merge of the nodes' parts is the set head-side analysis reads.
#include "result_json/rank_results_json.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "tests/temp_dir.h"
#include "trace/trace_files.h"
#include "common/version.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR

namespace aorta::result_json {
namespace {

namespace fs = std::filesystem;
using metrics::RankMetrics;
using metrics::TraceSet;

// What a node prints and the head reads back: text, as it crosses the wire.
TraceSet over_the_wire(const TraceSet& set) {
  auto back = rank_results_from_json(nlohmann::json::parse(rank_results_json(set).dump()));
  EXPECT_TRUE(back.ok()) << (back.ok() ? "" : back.error().message);
  return back.ok() ? back.value() : TraceSet{};
}

// Every field set, with doubles no short decimal holds.
RankMetrics awkward_rank() {
  RankMetrics r;
  r.rank = 3;
  r.rank_source = "path";
  r.source = "/n/rank3.json";
  r.node = "node2";
  r.gpu = 3;
  r.parser = metrics::ParserPath::kCpuTimeline;
  r.total_time_us = 1.0 / 3.0;
  r.compute_time_us = std::nextafter(0.1, 1.0);
  r.comm_time_us = 4.9406564584124654e-324;  // the smallest denormal
  r.total_comm_time_us = std::numeric_limits<double>::max();
  r.exposed_comm_time_us = -0.0;
  r.total_memcpy_time_us = 123456789.123456789;
  r.exposed_memcpy_time_us = 2.0 / 7.0;
  r.busy_time_us = 1e-300;
  r.idle_time_us = 0.30000000000000004;
  r.compute_ratio = 0.7157010000000001;
  r.comm_ratio = std::nextafter(1.0, 0.0);
  r.overlap_ratio = 0.5;
  r.exposed_comm_ratio = 1e22;
  r.peak_memory_gb = 79.99999999999999;
  metrics::StepMetrics step;
  step.step = 7;
  step.start_us = 1.7e15 + 0.25;
  step.time_ms = 1.0 / 7.0;
  step.gpu_events = 1u << 31;
  step.compute_ms = 0.1;
  step.exposed_comm_ms = 2.5;
  step.overlap_ms = 0.0;
  step.overlap_ratio = 1.0 / 9.0;
  step.classes = {{"gemm", 12, 3.0 / 11.0, 0.25}};
  step.idle = metrics::IdleBreakdown{0.1, 0.2, 0.3, 4, 9};
  r.steps = {step, metrics::StepMetrics{}};
  metrics::RankDiagnosis d;
  d.window_us = 1.0 / 13.0;
  d.classes = step.classes;
  d.collectives = {{"allreduce", "BFloat16", 8, 1ull << 40, 17, 2.0 / 3.0, 1.0 / 17.0, std::nullopt}};
  d.missing = {{"no dtype", 2, 0.125}};
  d.idle = *step.idle;
  r.diagnosis = d;
  return r;
}

TEST(RankResultsJson, RoundTripsEveryFieldToTheBit) {
  TraceSet set;
  set.status = metrics::ParseStatus::kPartial;
  set.ranks = {awkward_rank(), RankMetrics{}};
  set.warnings = {"w \xc3\xa9"};
  set.errors = {"e"};
  set.files_found = 3;
  set.files_parsed = 2;
  set.bytes = 1ull << 50;
  const TraceSet back = over_the_wire(set);
  EXPECT_EQ(back.status, set.status);
  EXPECT_EQ(back.ranks, set.ranks);
  EXPECT_EQ(back.warnings, set.warnings);
  EXPECT_EQ(back.errors, set.errors);
  EXPECT_EQ(back.files_found, 3u);
  EXPECT_EQ(back.files_parsed, 2u);
  EXPECT_EQ(back.bytes, 1ull << 50);
  EXPECT_TRUE(std::signbit(*back.ranks[0].exposed_comm_time_us));  // -0.0 stays negative zero
}

TEST(RankResultsJson, AMissingOrMistypedFieldIsAnErrorNotAZero) {
  TraceSet set;
  set.ranks = {awkward_rank()};
  nlohmann::json doc = rank_results_json(set);
  doc["ranks"][0].erase("compute_time_us");
  auto missing = rank_results_from_json(doc);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("compute_time_us"), std::string::npos) << missing.error().message;
  doc = rank_results_json(set);
  doc["ranks"][0]["total_time_us"] = "fast";
  EXPECT_FALSE(rank_results_from_json(doc).ok());
}

// A node that ran another build (another package installed there, an older
// analysis.node_binary) could compute other figures: its results are refused, named.
TEST(RankResultsJson, ResultsOfAnotherBuildAreRefusedNamingBoth) {
  TraceSet set;
  set.ranks = {awkward_rank()};
  nlohmann::json doc = rank_results_json(set);
  EXPECT_EQ(doc["build"], aorta::version_line());
  doc["build"] = "aorta_suite 0.0.9 (commit 000000000000)";
  auto other = rank_results_from_json(doc);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().message.find("come from \"aorta_suite 0.0.9 (commit 000000000000)\", the head is " +
                                       aorta::version_line()),
            std::string::npos)
      << other.error().message;
  doc.erase("build");
  ASSERT_FALSE(rank_results_from_json(doc).ok());
  EXPECT_NE(rank_results_from_json(doc).error().message.find("a build that does not say"), std::string::npos);
}

// The shipped two-rank H200 traces, as a two-node collection puts them.
fs::path two_node_collection(const fs::path& root) {
  const fs::path data = AORTA_TEST_DATA_DIR;
  for (int node = 0; node < 2; ++node) {
    const fs::path folder = root / ("node_" + std::to_string(node)) / "out/torch_profiler" /
                            ("rank" + std::to_string(node));
    fs::create_directories(folder);
    const std::string name = "h200-aorta-overlap_rank" + std::to_string(node) + ".pt.trace.json.gz";
    fs::copy_file(data / name, folder / name);
  }
  return root;
}

TEST(NodeSideAnalysis, MergedNodePartsEqualHeadSideAnalysisToTheBit) {
  aorta::testing::TempDir tmp;
  const fs::path root = two_node_collection(tmp.path() / "combined_traces");
  const TraceSet head = metrics::analyze_traces(root, {});
  ASSERT_EQ(head.ranks.size(), 2u);
  std::vector<TraceSet> parts;
  for (const char* node : {"node_0", "node_1"})
    parts.push_back(over_the_wire(metrics::analyze_files(trace::find_trace_files(root / node), {})));
  const TraceSet merged = metrics::merge_trace_sets(std::move(parts));
  EXPECT_EQ(merged.status, head.status);
  EXPECT_EQ(merged.ranks, head.ranks);
  EXPECT_FALSE(merged.ranks[0].steps.empty());
  EXPECT_TRUE(merged.ranks[0].diagnosis.has_value());
  EXPECT_EQ(merged.warnings, head.warnings);
  EXPECT_EQ(merged.errors, head.errors);
  EXPECT_EQ(merged.files_found, head.files_found);
  EXPECT_EQ(merged.files_parsed, head.files_parsed);
  EXPECT_EQ(merged.bytes, head.bytes);
}

TEST(NodeSideAnalysis, ARankTwoNodesSentIsKeptOnceAndTheMergeIsPartial) {
  auto one_rank = [](const std::string& source) {
    TraceSet part;
    part.ranks.emplace_back();
    part.ranks[0].rank = 0;
    part.ranks[0].source = source;
    part.files_found = part.files_parsed = 1;
    return part;
  };
  const TraceSet a = one_rank("a/rank0.json"), b = one_rank("b/rank0.json");
  const TraceSet merged = metrics::merge_trace_sets({a, b});
  ASSERT_EQ(merged.ranks.size(), 1u);
  EXPECT_EQ(merged.ranks[0].source, "a/rank0.json");
  EXPECT_EQ(merged.status, metrics::ParseStatus::kPartial);
  ASSERT_EQ(merged.errors.size(), 1u);
  EXPECT_EQ(merged.errors[0], "b/rank0.json: duplicate rank 0 (already read from a/rank0.json); this file is ignored");
  EXPECT_EQ(merged.files_parsed, 1u);
  const TraceSet none = metrics::merge_trace_sets({TraceSet{}, TraceSet{}});
  EXPECT_EQ(none.status, metrics::ParseStatus::kFailed);
  EXPECT_EQ(none.errors, std::vector<std::string>{"No traces could be parsed"});
}

}  // namespace
}  // namespace aorta::result_json
