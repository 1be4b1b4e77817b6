// collect_traces, snapshot_existing_traces and collect_logs end to end, this machine as the node:
// which files a run takes, from where, and what the stage log and errors say.
#include "job/collect.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "common/shell_quote.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

namespace fs = std::filesystem;

// This machine as one node with a repository at <tmp>/repo, run id "mine" and its
// collection folder at <tmp>/out; `find` may be replaced by a script for one collection.
struct LocalRepo {
  aorta::testing::TempDir dir;
  config::Variant v;
  config::Cluster c = config::local_cluster("tester");
  cluster::LocalTransport local;
  RunState state;
  LocalRepo() {
    v.aorta_path = (dir.path() / "repo").string();
    v.container.runtime = config::RuntimeKind::kNone;
    state.run_id = "mine";
    state.output_root = dir.path() / "out";
  }
  std::vector<std::string> collect(bool combined = false) {
    NodeExec exec(local, v, c);
    return collect_traces(exec, state, combined);
  }
  std::vector<std::string> snapshot() {
    NodeExec exec(local, v, c);
    return snapshot_existing_traces(exec, state);
  }
  // A collection with `find` replaced by a bash script (a node's own find as a test
  // makes it behave), the real one at /usr/bin/find.
  std::vector<std::string> collect_with_find(const std::string& script) {
    auto bin = dir.path() / "bin";
    std::filesystem::create_directories(bin);
    auto fake = dir.write("bin/find", "#!/bin/bash\n" + script + "\n");
    std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
    const std::string old_path = std::getenv("PATH");
    ::setenv("PATH", (bin.string() + ":" + old_path).c_str(), 1);
    auto notes = collect();
    ::setenv("PATH", old_path.c_str(), 1);
    return notes;
  }
};

// Issue 14: a run collects only its own output folder, even when another run of the
// same user wrote fresher traces into the shared repository at the same time.
TEST(Collect, RunCollectsOnlyItsOwnOutputFolder) {
  LocalRepo r;
  auto& dir = r.dir;
  auto& state = r.state;
  state.output_root = dir.path() / "out" / "mine";
  dir.write("repo/.cvs-aorta/mine/node_0/benchmark.log", "log");
  r.snapshot();
  EXPECT_TRUE(state.traces_before["localhost"].empty());  // nothing of this run existed before it
  dir.write("repo/.cvs-aorta/mine/output/torch_profiler/rank0/mine.pt.trace.json", "{}");
  // The other run's, newer than ours, in the repository and in its own folder.
  auto other = dir.write("repo/artifacts/local_cpu/torch_profiler/rank0/other.pt.trace.json", "{}");
  dir.write("repo/.cvs-aorta/theirs/output/torch_profiler/rank0/theirs.pt.trace.json", "{}");
  std::filesystem::last_write_time(other, std::filesystem::file_time_type::clock::now() + std::chrono::seconds(5));
  r.collect();
  EXPECT_TRUE(state.collection_errors.empty());
  ASSERT_EQ(state.artifacts.count("torch_traces"), 1u);
  EXPECT_EQ(state.artifacts["torch_traces"], state.output_root / "traces" / "output" / "torch_profiler");
  std::vector<std::string> got;
  for (const auto& e : std::filesystem::recursive_directory_iterator(state.output_root))
    if (e.is_regular_file()) got.push_back(std::filesystem::relative(e.path(), state.output_root).string());
  // zstd is on this machine: the trace came compressed and stays so.
  // The marker tells a later walk of a checkout holding this folder that it is a copy.
  EXPECT_EQ(got, (std::vector<std::string>{"traces/.aorta-suite-copy",
                                           "traces/output/torch_profiler/rank0/mine.pt.trace.json.zst"}));
}

// Issue 28: Aorta's own launch scripts pass train.py the config alone, so the output
// override never arrives and the traces land where the YAML says. The whole
// repository is walked; earlier runs' traces, the suite's folders, an earlier
// collection's copy and links are named as skipped, each with why.
TEST(Collect, LauncherThatDropsTheOverrideIsFoundInTheRepository) {
  LocalRepo r;
  auto& dir = r.dir;
  auto& state = r.state;
  r.v.base_config = "config/profile_overlap_2gpu.yaml";
  state.output_root = dir.path() / "out" / "mine";
  // An earlier run of the real launcher, in the same rank folder; an earlier run of
  // the suite's folder; an earlier collection copied into the repository.
  dir.write("repo/artifacts/p/torch_profiler/rank0/host_1.100.pt.trace.json", "{}");
  dir.write("repo/.cvs-aorta/earlier/output/torch_profiler/rank0/e.pt.trace.json", "{}");
  dir.write("repo/.cvs-aorta/mine/node_0/benchmark.log", "log");
  // An earlier collection's copies in a run folder (<output_dir>/<run-id>/...), as a
  // suite started inside the checkout leaves them: told by the marker the suite
  // writes into its copies, or (older copies) by the run's report beside them.
  dir.write("repo/aorta_results/0123456789abcdef0123456789abcdef/combined_traces/node_0/torch_profiler/rank0/c.pt.trace.json",
            "{}");
  dir.write("repo/aorta_results/0123456789abcdef0123456789abcdef/combined_traces/.aorta-suite-copy", "");
  dir.write("repo/aorta_results/fedcba9876543210fedcba9876543210/traces/artifacts/p/torch_profiler/rank0/t.pt.trace.json",
            "{}");
  dir.write("repo/aorta_results/fedcba9876543210fedcba9876543210/aorta_benchmark_report.json", "{}");
  r.snapshot();
  EXPECT_EQ(state.traces_before["localhost"].size(), 1u);  // the stale trace; the pruned folders are not read
  EXPECT_EQ(state.traces_before["localhost"].count("artifacts/p/torch_profiler/rank0/host_1.100.pt.trace.json"), 1u);
  // This run, written by the launcher where the YAML says: two ranks, and a link.
  dir.write("repo/artifacts/p/torch_profiler/rank0/host_2.200.pt.trace.json", "{\"r\": 0}");
  dir.write("repo/artifacts/p/torch_profiler/rank1/host_3.300.pt.trace.json", "{\"r\": 1}");
  std::filesystem::create_symlink("/etc/hostname", dir.path() / "repo/artifacts/p/torch_profiler/rank1/link.json");
  auto notes = r.collect();
  EXPECT_TRUE(state.collection_errors.empty()) << state.collection_errors.front().message;
  ASSERT_EQ(state.artifacts.count("torch_traces"), 1u);
  EXPECT_EQ(state.artifacts["torch_traces"], state.output_root / "traces" / "artifacts/p/torch_profiler");
  std::vector<std::string> got;
  for (const auto& e : std::filesystem::recursive_directory_iterator(state.output_root))
    if (e.is_regular_file()) got.push_back(std::filesystem::relative(e.path(), state.output_root).string());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"traces/.aorta-suite-copy",
                                           "traces/artifacts/p/torch_profiler/rank0/host_2.200.pt.trace.json.zst",
                                           "traces/artifacts/p/torch_profiler/rank1/host_3.300.pt.trace.json.zst"}));
  std::string log;
  for (const auto& n : notes) log += n + "\n";
  EXPECT_NE(log.find("localhost: found 2 file(s) of this run in artifacts/p/torch_profiler\n"), std::string::npos) << log;
  EXPECT_NE(log.find("localhost: skipped .cvs-aorta/earlier: the suite's own folder of another run"), std::string::npos)
      << log;
  for (const char* copy : {"0123456789abcdef0123456789abcdef/combined_traces", "fedcba9876543210fedcba9876543210/traces"})
    EXPECT_NE(log.find(std::string("localhost: skipped aorta_results/") + copy + ": an earlier collection's copy: never "
                       "collected\n"),
              std::string::npos)
        << log;
  EXPECT_NE(log.find("localhost: skipped artifacts/p/torch_profiler/rank1/link.json: not a regular file"),
            std::string::npos) << log;
  EXPECT_NE(log.find("localhost: skipped artifacts/p/torch_profiler/rank0/host_1.100.pt.trace.json: there before the "
                     "benchmark started, unchanged"),
            std::string::npos) << log;
  EXPECT_EQ(log.find("benchmark.log"), std::string::npos) << log;  // not a candidate at all
}

// Nothing fresh anywhere: the error says where it looked, and what to check.
TEST(Collect, NothingFreshSaysWhereItLooked) {
  LocalRepo r;
  auto& dir = r.dir;
  auto& state = r.state;
  const auto& v = r.v;
  r.v.base_config = "config/x.yaml";
  dir.write("repo/artifacts/x/torch_profiler/rank0/old.pt.trace.json", "{}");
  state.trace_floor["localhost"] = 4e9;  // every file is older
  auto notes = r.collect();
  ASSERT_EQ(state.collection_errors.size(), 1u);
  EXPECT_EQ(state.collection_errors[0].reason, CollectionFailure::kNothingFresh);
  EXPECT_EQ(state.collection_errors[0].message,
            "No fresh torch_profiler files found under " + v.aorta_path +
                ": 1 file(s) and 0 folder(s) skipped, each named with why in the stage log. The workload writes its traces to "
                "<training.output_dir>/torch_profiler, as config/x.yaml sets it, relative to the folder it starts in: "
                "keep that folder inside aorta_path");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "localhost: skipped artifacts/x/torch_profiler/rank0/old.pt.trace.json: older than this run "
                      "(written before 2096-10-02 07:06:40 UTC)");
}

// After review (issue 28): a folder find cannot read (another user's, 0700) costs only
// itself, and what find said is in the stage log; a link to a folder is named, never
// followed; a stale file with a name no copy may take is named, not a failure, while a
// fresh one still fails the node; a folder of stale traces is one line of the log.
TEST(Collect, AWalkThatCannotReadEverythingStillCollects) {
  LocalRepo r;
  auto& dir = r.dir;
  auto& state = r.state;
  const auto& v = r.v;
  for (int i = 0; i < 30; ++i)
    dir.write("repo/old/torch_profiler/rank0/host_" + std::to_string(i) + ".pt.trace.json", "{}");
  dir.write("repo/old/torch_profiler/rank0/we\nird.json", "{}");
  dir.write("repo/elsewhere/torch_profiler/rank0/x.json", "{}");
  std::filesystem::create_symlink(dir.path() / "repo/elsewhere", dir.path() / "repo/artifacts");
  EXPECT_TRUE(r.snapshot().empty());
  dir.write("repo/.cvs-aorta/mine/output/torch_profiler/rank0/t.pt.trace.json", "{}");
  // find as a node without read access to one folder has it: the files it can read,
  // a complaint on stderr, exit 1.
  auto notes = r.collect_with_find("/usr/bin/find \"$@\"; echo \"find: './data/tmpabc': Permission denied\" >&2; exit 1");
  std::string log;
  for (const auto& n : notes) log += n + "\n";
  EXPECT_TRUE(state.collection_errors.empty()) << state.collection_errors.front().message << "\n" << log;
  EXPECT_EQ(state.artifacts["torch_traces"], state.output_root / "traces" / "output" / "torch_profiler");
  EXPECT_NE(log.find("localhost: the walk of " + v.aorta_path + " could not read everything; traces there are not seen: "
                     "find: './data/tmpabc': Permission denied"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("localhost: skipped artifacts: a link to a folder: never followed"), std::string::npos) << log;
  // The 30 stale traces and the odd name: one line each reason, the name escaped.
  EXPECT_NE(log.find("localhost: skipped old/torch_profiler/rank0/"), std::string::npos) << log;
  EXPECT_NE(log.find(" and 28 more (31 entries): there before the benchmark started, unchanged\n"), std::string::npos)
      << log;
  EXPECT_EQ(log.find("we\nird"), std::string::npos) << log;
  EXPECT_LE(notes.size(), 6u) << log;
  // The same odd name written by this run: the node fails, naming it escaped.
  dir.write("repo/.cvs-aorta/mine/output/torch_profiler/rank1/we\x1b]52;c;eA==\x07.json", "{}");
  state.artifacts.clear();
  r.collect();
  ASSERT_EQ(state.collection_errors.size(), 1u);
  EXPECT_EQ(state.collection_errors[0].message,
            "refused unsafe artifact path(s): .cvs-aorta/mine/output/torch_profiler/rank1/we\\x1b]52;c;eA==\\x07.json");
}

// Issue 29, 9: a lying node's listing without a size (or an absurd one) would turn the
// size check of its copies off: the node is refused, naming the file.
TEST(Collect, AListingWithoutSizesIsRefused) {
  LocalRepo r;
  auto& state = r.state;
  r.dir.write("repo/.cvs-aorta/mine/output/torch_profiler/rank0/t.pt.trace.json", "{}");
  r.collect_with_find("/usr/bin/find \"${@//%s/-1}\"");  // a lying node: every size printed as -1
  ASSERT_EQ(state.collection_errors.size(), 1u);
  EXPECT_EQ(state.collection_errors[0].message, "the node listed no size for .cvs-aorta/mine/output/torch_profiler/rank0/"
                                               "t.pt.trace.json: no copy is taken that cannot be checked");
  EXPECT_EQ(state.artifacts.count("torch_traces"), 0u);
}

// Issue 42, 9: a workload folder named like a run id (runs/3f2a9c1b7e/traces/...)
// is the workload's own: an earlier collection's copy is told by what the suite
// makes (LauncherThatDropsTheOverrideIsFoundInTheRepository), never by a hex name.
TEST(Collect, AHexNamedWorkloadFolderIsCollected) {
  LocalRepo r;
  for (const char* copy : {"runs/3f2a9c1b7e/traces", "0123456789abcdef0123456789abcdef/combined_traces"})
    r.dir.write(std::string("repo/") + copy + "/torch_profiler/rank0/old.pt.trace.json", "{}");
  r.snapshot();
  r.dir.write("repo/runs/3f2a9c1b7e/traces/torch_profiler/rank0/h.1.pt.trace.json", "{}");
  auto notes = r.collect();
  EXPECT_TRUE(r.state.collection_errors.empty()) << r.state.collection_errors.front().message;
  EXPECT_EQ(r.state.artifacts["torch_traces"], r.state.output_root / "traces/runs/3f2a9c1b7e/traces/torch_profiler");
  std::string log;
  for (const auto& n : notes) log += n + "\n";
  EXPECT_EQ(log.find("an earlier collection's copy"), std::string::npos) << log;
  EXPECT_NE(log.find("skipped 0123456789abcdef0123456789abcdef/combined_traces/torch_profiler/rank0/old.pt.trace.json: "
                     "there before the benchmark started"),
            std::string::npos) << log;
}

// Issue 42, 4, end to end: a folder on a listed file's path swapped for a link once
// the walk ended (a process the workload left behind does it) is not followed: the
// node fails naming the file, and nothing from where the link points is kept.
TEST(Collect, AFolderSwappedForALinkAfterTheListingIsNotFollowed) {
  LocalRepo r;
  const auto stash = r.dir.path() / "repo/.cvs-aorta/mine/output/torch_profiler/stash";
  r.dir.write("repo/.cvs-aorta/mine/output/torch_profiler/rank0/t.pt.trace.json", "{}");
  r.dir.write("repo/.cvs-aorta/mine/output/torch_profiler/stash/id_ed25519", std::string(64, 'w'));
  r.dir.write("private/id_ed25519", std::string(64, 'K'));
  r.collect_with_find("/usr/bin/find \"$@\"; rc=$?; s=" + shell_quote(stash.string()) + "; [ -L \"$s\" ] || { mv \"$s\" "
                      "\"$s.real\" && ln -s " + shell_quote((r.dir.path() / "private").string()) + " \"$s\"; }; exit $rc");
  ASSERT_EQ(r.state.collection_errors.size(), 1u);
  EXPECT_EQ(r.state.collection_errors[0].message.find(
                ".cvs-aorta/mine/output/torch_profiler/stash/id_ed25519 on localhost changed or was replaced by a link "
                "after it was listed; not copied ("),
            0u) << r.state.collection_errors[0].message;
  for (const auto& e : std::filesystem::recursive_directory_iterator(r.state.output_root))
    EXPECT_EQ(e.path().filename().string().find("id_ed25519"), std::string::npos) << e.path();
}

// --- collect_logs (issue 42, 4): each phase's log opened by the checked walk ---

// r's run "mine" with its benchmark phase launched, its logs in
// <repo>/.cvs-aorta/mine/node_0, and a private file beside the checkout.
void launch_benchmark(LocalRepo& r, bool container = true) {
  r.state.launched_phases = {"benchmark"};
  r.state.container_started = container;
  r.dir.write("private/benchmark.log", "-----BEGIN OPENSSH PRIVATE KEY-----\n");
}
std::vector<std::string> collect_logs_of(LocalRepo& r) {
  NodeExec exec(r.local, r.v, r.c);
  return collect_logs(exec, r.state);
}
// `folder` of the checkout renamed away and a link to the private folder in its place.
void swap_for_link(LocalRepo& r, const std::string& folder) {
  const fs::path at = r.dir.path() / "repo" / folder;
  fs::rename(at, at.string() + ".real");
  fs::create_directory_symlink(r.dir.path() / "private", at);
}
// Nothing of the private folder's file anywhere in the run's folder.
void expect_nothing_private(const LocalRepo& r) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(r.state.output_root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    std::ifstream in(it->path());
    const std::string text(std::istreambuf_iterator<char>(in), {});
    EXPECT_EQ(text.find("PRIVATE KEY"), std::string::npos) << it->path();
  }
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The ordinary case: in the container (here the node itself) and, once the container
// is gone, from the host's checkout: the log arrives either way.
TEST(CollectLogs, TheLogIsCopiedWhereThePhaseRanOrFromTheHost) {
  for (bool container : {true, false}) {
    LocalRepo n;
    launch_benchmark(n, container);
    n.dir.write("repo/.cvs-aorta/mine/node_0/benchmark.log", "step 1 loss 2.5\n");
    const auto notes = collect_logs_of(n);
    EXPECT_TRUE(notes.empty()) << notes.front();
    ASSERT_EQ(n.state.artifacts.count("benchmark_log_node_0"), 1u) << container;
    EXPECT_EQ(read(n.state.artifacts.at("benchmark_log_node_0")), "step 1 loss 2.5\n");
    EXPECT_EQ(n.state.artifacts.at("training_log"), n.state.output_root / "benchmark-node-0.log");
  }
}

// Issue 42, 4: the log's folder, or any folder above it in the checkout, swapped for
// a link to a private folder (a process the workload left behind does it) is not
// followed: the note names the node and the log, and nothing is kept.
TEST(CollectLogs, AFolderOnTheLogsPathSwappedForALinkIsRefused) {
  for (const std::string folder : {".cvs-aorta/mine/node_0", ".cvs-aorta"}) {
    for (bool container : {true, false}) {
      LocalRepo n;
      launch_benchmark(n, container);
      n.dir.write("repo/.cvs-aorta/mine/node_0/benchmark.log", "step 1\n");
      swap_for_link(n, folder);
      if (folder == ".cvs-aorta") n.dir.write("private/mine/node_0/benchmark.log", "-----BEGIN OPENSSH PRIVATE KEY");
      const auto notes = collect_logs_of(n);
      ASSERT_EQ(notes.size(), 1u) << folder;
      const std::string log = n.v.aorta_path + "/.cvs-aorta/mine/node_0/benchmark.log";
      EXPECT_EQ(notes[0].find("Could not collect benchmark log from localhost: " + log + " on localhost was not copied: "),
                0u) << notes[0];
      EXPECT_NE(notes[0].find(n.v.aorta_path + "/" + folder + ": "), std::string::npos) << notes[0];  // where it stopped
      EXPECT_EQ(n.state.artifacts.count("benchmark_log_node_0"), 0u);
      EXPECT_FALSE(fs::exists(n.state.output_root / "benchmark-node-0.log"));
      expect_nothing_private(n);
    }
  }
}

// The log itself a link, or not there at all: nothing is copied and the note says so.
TEST(CollectLogs, ALinkInTheLogsPlaceOrNoLogIsNamed) {
  LocalRepo n;
  launch_benchmark(n);
  n.state.launched_phases = {"rccl", "benchmark"};
  n.dir.write("repo/.cvs-aorta/mine/node_0/.keep", "");
  fs::create_symlink(n.dir.path() / "private/benchmark.log", n.dir.path() / "repo/.cvs-aorta/mine/node_0/benchmark.log");
  const auto notes = collect_logs_of(n);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("Could not collect rccl log from localhost: " + n.v.aorta_path +
                          "/.cvs-aorta/mine/node_0/rccl.log on localhost was not copied: "),
            std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("No such file or directory"), std::string::npos) << notes[0];
  EXPECT_NE(notes[1].find("benchmark.log on localhost was not copied: "), std::string::npos) << notes[1];
  EXPECT_TRUE(n.state.artifacts.empty());
  expect_nothing_private(n);
}

// Without python3 the checked walk cannot run: the note says so, and no unchecked
// copy by path takes its place.
TEST(CollectLogs, WithoutPython3TheNoteSaysSoAndNothingIsCopied) {
  LocalRepo n;
  launch_benchmark(n);
  n.dir.write("repo/.cvs-aorta/mine/node_0/benchmark.log", "step 1\n");
  const fs::path bin = n.dir.path() / "bin";  // bash alone on the PATH
  fs::create_directories(bin);
  fs::create_symlink(fs::canonical("/bin/bash"), bin / "bash");
  const std::string old_path = std::getenv("PATH");
  ::setenv("PATH", bin.c_str(), 1);
  const auto notes = collect_logs_of(n);
  ::setenv("PATH", old_path.c_str(), 1);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("Could not collect benchmark log from localhost: the copy of " + n.v.aorta_path +
                          "/.cvs-aorta/mine/node_0/benchmark.log on the node failed (exit 127): python3 is not on the "
                          "PATH here"),
            std::string::npos) << notes[0];
  EXPECT_EQ(n.state.artifacts.count("benchmark_log_node_0"), 0u);
  EXPECT_FALSE(fs::exists(n.state.output_root / "benchmark-node-0.log"));
}

}  // namespace
}  // namespace aorta::job
