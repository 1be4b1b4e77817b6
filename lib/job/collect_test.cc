#include "job/collect.h"

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "job/phase.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

std::string listing(std::initializer_list<std::pair<const char*, std::string>> entries) {
  std::string out;
  for (const auto& [mtime, path] : entries) out += std::string(mtime) + "\t" + path + std::string(1, '\0');
  return out;
}

TEST(Collect, ListingRefusesPathsThatLeaveTheTree) {
  std::vector<std::string> rejected;
  auto files = parse_file_listing(
      listing({{"10.5", "out/torch_profiler/rank0/a.json"}, {"11", "../etc/passwd"}, {"12", "/etc/shadow"},
               {"13", "out/torch_profiler/../../x"}, {"14", "out/torch_profiler/rank0/bad\nname"},
               {"15", "out/torch_profiler/rank0/we'ird $(touch x) ..name.txt"}}),
      rejected);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, "out/torch_profiler/rank0/a.json");
  EXPECT_DOUBLE_EQ(files[0].mtime, 10.5);
  EXPECT_EQ(files[1].path, "out/torch_profiler/rank0/we'ird $(touch x) ..name.txt");
  EXPECT_EQ(rejected.size(), 4u);
}

TEST(Collect, ListingSurvivesAStrayStderrLine) {
  std::vector<std::string> rejected;
  auto files = parse_file_listing("WARN[0000] some engine warning\n" + listing({{"10.5", "o/torch_profiler/r0/a.json"}}),
                                  rejected);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_DOUBLE_EQ(files[0].mtime, 10.5);
  EXPECT_TRUE(rejected.empty());
}

TEST(Collect, NewestTracePerDirectoryOthersKept) {
  std::vector<FreshFile> files = {{1, "t/torch_profiler/rank0/old.pt.trace.json"},
                                  {2, "t/torch_profiler/rank0/new.pt.trace.json.gz"},
                                  {3, "t/torch_profiler/rank0/notes.txt"},
                                  {1, "t/torch_profiler/rank1/only.pt.trace.json"}};
  auto dropped = keep_newest_per_directory(files);
  ASSERT_EQ(dropped, std::vector<std::string>{"t/torch_profiler/rank0/old.pt.trace.json"});
  std::vector<std::string> kept;
  for (const auto& f : files) kept.push_back(f.path);
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(kept, (std::vector<std::string>{"t/torch_profiler/rank0/new.pt.trace.json.gz",
                                            "t/torch_profiler/rank0/notes.txt",
                                            "t/torch_profiler/rank1/only.pt.trace.json"}));
}

// Issue 14: a run collects only its own output folder, even when another run of the
// same user wrote fresher traces into the shared repository at the same time.
TEST(Collect, RunCollectsOnlyItsOwnOutputFolder) {
  aorta::testing::TempDir dir;
  config::Variant v;
  v.aorta_path = (dir.path() / "repo").string();
  v.container.runtime = config::RuntimeKind::kNone;
  config::Cluster c = config::local_cluster("tester");
  cluster::LocalTransport local;
  NodeExec exec(local, v, c);
  RunState state;
  state.run_id = "mine";
  state.output_root = dir.path() / "out" / "mine";
  state.trace_dir = run_output_dir(v, "mine");
  dir.write("repo/.cvs-aorta/mine/node_0/benchmark.log", "log");
  snapshot_existing_traces(exec, state);
  EXPECT_TRUE(state.traces_before["localhost"].empty());  // nothing of this run existed before it
  dir.write("repo/.cvs-aorta/mine/output/torch_profiler/rank0/mine.pt.trace.json", "{}");
  // The other run's, newer than ours, in the repository and in its own folder.
  auto other = dir.write("repo/artifacts/local_cpu/torch_profiler/rank0/other.pt.trace.json", "{}");
  dir.write("repo/.cvs-aorta/theirs/output/torch_profiler/rank0/theirs.pt.trace.json", "{}");
  std::filesystem::last_write_time(other, std::filesystem::file_time_type::clock::now() + std::chrono::seconds(5));
  collect_traces(exec, state, false);
  EXPECT_TRUE(state.collection_errors.empty());
  ASSERT_EQ(state.artifacts.count("torch_traces"), 1u);
  EXPECT_EQ(state.artifacts["torch_traces"], state.output_root / "traces" / "output" / "torch_profiler");
  std::vector<std::string> got;
  for (const auto& e : std::filesystem::recursive_directory_iterator(state.output_root))
    if (e.is_regular_file()) got.push_back(std::filesystem::relative(e.path(), state.output_root).string());
  EXPECT_EQ(got, std::vector<std::string>{"traces/output/torch_profiler/rank0/mine.pt.trace.json"});
}

}  // namespace
}  // namespace aorta::job
