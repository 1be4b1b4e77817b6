// Node-side analysis through the run's transport: the head asks each node for its own
// traces' rank results, names each rank by its copy here, and a node that cannot
// answer is an error of the set that names it, never a silent rank short.
#include "stages/node_analysis.h"

#include <gtest/gtest.h>

#include "job/collect_copy.h"
#include "result_json/rank_results_json.h"
#include "tests/stage_harness.h"

namespace aorta::stages {
namespace {

const std::string kNodeTrace = "/workspace/aorta/.cvs-aorta/r/out/torch_profiler/rank0/t.json";
const std::string kCopy = "/out/combined_traces/node_0/out/torch_profiler/rank0/t.json.zst";

// n1 holds rank 0, n2 rank 1; a trace outside the analyzed folder is never sent.
void two_nodes(Harness& h) {
  h.v.container.runtime = config::RuntimeKind::kNone;  // the command as the node's shell gets it
  h.v.analysis.where = "nodes";
  h.v.analysis.node_binary = "/opt/aorta suite/bin/aorta_suite";
  h.state.node_traces = {
      {0, "n1", "/out/combined_traces/node_0", {{kNodeTrace, kCopy}, {"/elsewhere/x.json", "/other/x.json"}}},
      {1, "n2", "/out/combined_traces/node_1", {{"/workspace/aorta/r1.json", "/out/combined_traces/node_1/r1.json"}}}};
}

metrics::RankMetrics rank0(const std::string& source) {
  metrics::RankMetrics r;
  r.rank = 0;
  r.source = source;
  r.total_time_us = 0.1;
  return r;
}

std::string answer_with_rank0() {
  metrics::TraceSet part;
  part.ranks = {rank0(kNodeTrace)};
  part.warnings = {kNodeTrace + ": no GPU events"};
  part.files_found = part.files_parsed = 1;
  return "some noise\n" + std::string(result_json::kRankResultsMarker) + result_json::rank_results_json(part).dump() + "\n";
}

metrics::TraceSet analyze(Harness& h, std::vector<std::string>& log) {
  job::NodeExec exec(h.fake, h.v, h.cluster);
  StageContext ctx{exec, h.state, [](const std::string&) {}};
  return analyze_on_nodes(ctx, "/out/combined_traces", log);
}

TEST(NodeAnalysis, EachNodeReadsItsOwnTracesAndRanksAreNamedByTheirCopyHere) {
  Harness h;
  two_nodes(h);
  h.fake.on("n1", "rank-results", 0, answer_with_rank0());
  h.fake.on("n2", "rank-results", 127, "sh: /opt/aorta suite/bin/aorta_suite: not found");
  std::vector<std::string> log;
  const metrics::TraceSet set = analyze(h, log);
  ASSERT_EQ(set.ranks.size(), 1u);
  EXPECT_EQ(set.ranks[0].source, kCopy);
  EXPECT_EQ(set.ranks[0].total_time_us, 0.1);
  EXPECT_EQ(set.warnings, std::vector<std::string>{kCopy + ": no GPU events"});
  ASSERT_EQ(set.errors.size(), 1u);
  EXPECT_TRUE(contains(set.errors[0], "n2: node-side analysis of 1 trace(s) failed: exit 127: sh: /opt/aorta suite"))
      << set.errors[0];
  EXPECT_EQ(set.status, metrics::ParseStatus::kPartial);
  EXPECT_EQ(set.files_found, 2u);
  const auto asked = h.fake.commands_with("n1", "rank-results");
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], "'/opt/aorta suite/bin/aorta_suite' rank-results " + kNodeTrace);
  EXPECT_FALSE(contains(asked[0], "/elsewhere/x.json")) << asked[0];
  EXPECT_TRUE(contains(joined(log), "2 trace(s) read on 2 node(s)")) << joined(log);
}

TEST(NodeAnalysis, AnAnswerThatIsNotRankResultsIsTheNodesError) {
  Harness h;
  two_nodes(h);
  h.fake.on("n1", "rank-results", 0, std::string(result_json::kRankResultsMarker) + "{\"ranks\": 3}\n");
  h.fake.on("n2", "rank-results", 0, "no marker here\n");
  std::vector<std::string> log;
  const metrics::TraceSet set = analyze(h, log);
  EXPECT_TRUE(set.ranks.empty());
  EXPECT_EQ(set.status, metrics::ParseStatus::kFailed);
  ASSERT_EQ(set.errors.size(), 3u) << joined(set.errors);
  EXPECT_TRUE(contains(set.errors[0], "n1: node-side analysis of 1 trace(s) failed: node-side rank results come from a build that does not say"));
  EXPECT_TRUE(contains(set.errors[1], "n2: node-side analysis of 1 trace(s) failed: exit 0: no marker here"));
  EXPECT_EQ(set.errors[2], "No traces could be parsed");
}

// archive_traces none: no trace comes home, so every rank and finding names its trace
// where it stays (host:path), and the log says which were kept.
TEST(NodeAnalysis, TracesLeftOnTheNodesAreNamedThere) {
  Harness h;
  two_nodes(h);
  h.v.analysis.archive_traces = "none";
  h.state.deferred_copies = std::make_shared<job::DeferredCopies>();
  h.state.result = metrics::RunMetrics{};
  h.state.result->per_rank = {rank0(kCopy)};
  h.state.result->outliers = {metrics::Finding{}};
  h.state.result->outliers[0].source = kCopy;
  job::NodeExec exec(h.fake, h.v, h.cluster);
  StageContext ctx{exec, h.state, [](const std::string&) {}};
  std::vector<std::string> log;
  archive_chosen_traces(ctx, log);
  EXPECT_EQ(h.state.result->per_rank[0].source, "n1:" + kNodeTrace);
  EXPECT_EQ(h.state.result->outliers[0].source, "n1:" + kNodeTrace);
  EXPECT_TRUE(contains(joined(log), "Traces kept here (analysis.archive_traces none): 0 of 3;")) << joined(log);
}

}  // namespace
}  // namespace aorta::stages
