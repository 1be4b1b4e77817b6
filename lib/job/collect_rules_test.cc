// Trace collection's rules through collect_traces() and FakeTransport: which slot a
// node's traces land in when an earlier node failed (audit J22), and that a link
// already in the output folder cannot carry a download outside it (audit P7).
#include "job/collect.h"

#include <gtest/gtest.h>

#include "tests/fake_transport.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

namespace fs = std::filesystem;
using aorta::testing::FakeTransport;

// Two nodes without a container runtime: listings and downloads use aorta_path itself.
struct TwoNodes {
  aorta::testing::TempDir dir;
  FakeTransport fake;
  config::Variant v;
  config::Cluster cluster;
  RunState state;

  TwoNodes() {
    v.aorta_path = "/scratch/alice/aorta";
    v.container.runtime = config::RuntimeKind::kNone;
    v.timeout_seconds = 60;
    cluster.username = "alice";
    cluster.nodes = {{"n1", "10.0.0.1", ""}, {"n2", "10.0.0.2", ""}};
    state.run_id = "0123456789abcdef0123456789abcdef";
    state.output_root = dir.path() / "out";
  }
  // `host` has `relative` under aorta_path, listed by find with this mtime.
  void serve(const std::string& host, const std::string& relative, const std::string& mtime) {
    const std::string content = "{\"traceEvents\": []}";
    dir.write(host + "fs/scratch/alice/aorta/" + relative, content);
    fake.serve_files(host, dir.path() / (host + "fs"));
    // As the listing command prints it: type, mtime, size, path.
    fake.on(host, "find .", 0, "f\t" + mtime + "\t" + std::to_string(content.size()) + "\t" + relative + std::string(1, '\0'));
  }
  std::vector<std::string> collect(bool combined) {
    NodeExec exec(fake, v, cluster);
    return collect_traces(exec, state, combined);
  }
};

// Every regular file under `root` (links inside it are not followed).
std::vector<fs::path> files_under(const fs::path& root) {
  std::vector<fs::path> found;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) found.push_back(e.path());
  return found;
}

// Audit J22 (the reference's case): node-a fails, node-b still succeeds, and node-b's
// traces keep node-b's slot, node_1, so a rank's folder always names its node.
TEST(CollectRules, NodeAfterAFailedOneKeepsItsOwnSlot) {
  TwoNodes t;
  const std::string trace = "torch_profiler/rank1/trace.json";
  t.fake.on("n1", "find .", 2, "find: '.': Permission denied");
  t.serve("n2", trace, "1700000000.5");
  t.collect(true);
  ASSERT_EQ(t.state.collection_errors.size(), 1u);
  EXPECT_EQ(t.state.collection_errors[0].host, "n1");
  EXPECT_EQ(t.state.collection_errors[0].message, "listing traces failed (exit 2): find: '.': Permission denied");
  EXPECT_EQ(t.state.collection_errors[0].reason, CollectionFailure::kOther);
  EXPECT_TRUE(fs::is_regular_file(t.state.output_root / "combined_traces/node_1" / trace));
  EXPECT_FALSE(fs::exists(t.state.output_root / "combined_traces/node_0"));
  EXPECT_EQ(t.state.trace_trees, (std::map<std::string, std::vector<std::string>>{{"n2", {"torch_profiler"}}}));
  EXPECT_EQ(t.state.artifacts.at("torch_traces"), t.state.output_root / "combined_traces");
  // The folder names its node for the diagnosis (issue 34).
  EXPECT_EQ(t.state.trace_folders,
            (std::map<fs::path, std::string>{{t.state.output_root / "combined_traces/node_1", "n2"}}));
}

// On storage the nodes share, both list the same file: it is taken once, and no folder
// names a node (who wrote it is unknown).
TEST(CollectRules, SharedStorageNamesNoNode) {
  TwoNodes t;
  const std::string trace = "torch_profiler/rank0/trace.json";
  t.serve("n1", trace, "1700000000.5");
  t.serve("n2", trace, "1700000000.5");
  t.collect(true);
  EXPECT_TRUE(t.state.collection_errors.empty());
  EXPECT_TRUE(fs::is_regular_file(t.state.output_root / "combined_traces/node_0" / trace));
  EXPECT_TRUE(t.state.trace_folders.empty());
}

// Audit P7: a link already in the output folder that points outside it is refused;
// the download does not follow it, and nothing counts as collected.
TEST(CollectRules, LinkInTheDestinationPointingOutsideIsRefused) {
  TwoNodes t;
  const fs::path elsewhere = t.dir.path() / "elsewhere";
  fs::create_directories(elsewhere);
  fs::create_directories(t.state.output_root);
  fs::create_directory_symlink(elsewhere, t.state.output_root / "traces");
  const std::string trace = "torch_profiler/rank0/trace.json";
  t.serve("n1", trace, "1700000000.5");
  t.collect(false);
  EXPECT_TRUE(files_under(elsewhere).empty());
  EXPECT_TRUE(fs::is_empty(elsewhere)) << "folders were made where the link points";
  ASSERT_EQ(t.state.collection_errors.size(), 1u);
  EXPECT_EQ(t.state.collection_errors[0].host, "n1");
  EXPECT_NE(t.state.collection_errors[0].message.find(trace), std::string::npos) << t.state.collection_errors[0].message;
  EXPECT_NE(t.state.collection_errors[0].message.find("outside"), std::string::npos) << t.state.collection_errors[0].message;
  EXPECT_FALSE(t.state.artifacts.count("torch_traces"));
  EXPECT_TRUE(t.state.trace_trees.empty());
}

// analysis.archive_traces outliers or none (node-side analysis, issue 46): the
// collection copies nothing and names each trace by where its copy would go;
// archive_traces then copies the traces asked for, and only those.
TEST(CollectRules, LessThanAllArchivedLeavesTracesOnTheNodesUntilAsked) {
  TwoNodes t;
  t.v.analysis.where = "nodes";
  t.v.analysis.archive_traces = "outliers";
  t.serve("n1", "torch_profiler/rank0/trace.json", "1700000000.5");
  t.serve("n2", "torch_profiler/rank1/trace.json", "1700000000.5");
  t.collect(true);
  EXPECT_TRUE(t.state.collection_errors.empty());
  const fs::path here = t.state.output_root / "combined_traces";
  EXPECT_EQ(t.state.artifacts.at("torch_traces"), here);
  EXPECT_FALSE(fs::exists(here / "node_0/torch_profiler/rank0/trace.json"));
  ASSERT_EQ(t.state.node_traces.size(), 2u);
  const std::string wanted = (here / "node_1/torch_profiler/rank1/trace.json").string();
  EXPECT_EQ(t.state.node_traces[1].host, "n2");
  EXPECT_EQ(t.state.node_traces[1].files,
            (std::vector<std::pair<std::string, std::string>>{{"/scratch/alice/aorta/torch_profiler/rank1/trace.json",
                                                               wanted}}));
  NodeExec exec(t.fake, t.v, t.cluster);
  std::vector<std::string> notes;
  EXPECT_EQ(archive_traces(exec, t.state, {wanted}, notes), std::set<std::string>{wanted});
  EXPECT_TRUE(fs::is_regular_file(wanted));
  EXPECT_FALSE(fs::exists(here / "node_0/torch_profiler/rank0/trace.json"));
  EXPECT_FALSE(t.state.deferred_copies);
}

}  // namespace
}  // namespace aorta::job
