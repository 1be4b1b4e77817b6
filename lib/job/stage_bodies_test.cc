// Stage bodies driven through FakeTransport (tests/fake_transport.h): each node's
// answer is scripted, so a test can make one node of two fail and check that the
// stage names it, and read back what every node was asked to run. Only the public
// outcome (failures, skip_reason, subtests, notes) and RunState are checked.
#include "job/stages.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/known_secrets.h"
#include "common/shell_quote.h"
#include "job/collect.h"
#include "metrics/run_metrics.h"
#include "tests/fake_transport.h"
#include "tests/rank_fixture.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

using aorta::testing::FakeTransport;

constexpr const char* kAny = "*";

// Two docker nodes, an existing checkout (no clone), RCCL build skipped.
struct Harness {
  FakeTransport fake;
  config::Variant v;
  config::Cluster cluster;
  RunState state;
  std::vector<std::string> progress;

  Harness() {
    v.aorta_path = "/scratch/alice/aorta";
    v.container_mount_path = "/workspace/aorta";
    v.container.runtime = config::RuntimeKind::kDocker;
    v.container.runtime_name = "docker";
    v.container.image = "rocm/aorta:1";
    v.container.lifetime = "per_run";
    v.base_config = "config/overlap.yaml";
    v.build_script = "scripts/build_rccl.sh";
    v.experiment_script = "scripts/launch.sh";
    v.multi_node.train_script = "train.py";
    v.skip_rccl_build = true;
    v.timeout_seconds = 60;
    cluster.username = "alice";
    cluster.nodes = {{"n1", "10.0.0.1", ""}, {"n2", "10.0.0.2", ""}};
    state.run_id = "0123456789abcdef0123456789abcdef";
  }

  StageOutcome run(StageOutcome (*body)(StageContext&)) {
    NodeExec exec(fake, v, cluster);
    StageContext ctx{exec, state, [this](const std::string& line) { progress.push_back(line); }};
    return body(ctx);
  }
};

std::string joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  return all;
}

bool contains(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// --- launch_container -------------------------------------------------------

// Audit J7/J8: uid:gid recorded per node for teardown's chown; each node's render gid
// joins the container's groups in node order (not sorted), after video.
TEST(StageBodies, LaunchRecordsOwnersAndRenderGroupsInNodeOrder) {
  Harness h;
  h.fake.on("n1", "id -u && id -g", 0, "1000\n1000\n110\n");
  h.fake.on("n2", "id -u && id -g", 0, "1001\n1002\n109\n");
  h.fake.on(kAny, "flock", 0, "CVS_AORTA_LOCK=4242\n");
  h.fake.on(kAny, "docker ps -q", 0, "AORTA_DOCKER=direct\n");  // the daemon is reachable without sudo
  h.fake.on(kAny, "docker inspect", 0, "true\n");
  StageOutcome out = h.run(launch_container);
  EXPECT_FALSE(out.failed()) << joined(out.failures);
  EXPECT_EQ(h.state.host_owner, (std::map<std::string, std::string>{{"n1", "1000:1000"}, {"n2", "1001:1002"}}));
  EXPECT_TRUE(h.state.container_started);
  EXPECT_EQ(h.state.workdir_locks.size(), 2u);
  for (const char* host : {"n1", "n2"}) {
    auto runs = h.fake.commands_with(host, "docker run");
    ASSERT_EQ(runs.size(), 1u) << host;
    EXPECT_TRUE(contains(runs[0], shell_join({"--group-add", "video", "--group-add", "110", "--group-add", "109"})))
        << runs[0];
  }
}

TEST(StageBodies, LaunchNamesTheNodeWhoseIdFails) {
  Harness h;
  h.fake.on("n1", "id -u && id -g", 0, "1000\n1000\n110\n");
  h.fake.on("n2", "id -u && id -g", 1, "id: cannot find name for user ID 1001");
  StageOutcome out = h.run(launch_container);
  ASSERT_EQ(out.failures.size(), 1u);
  EXPECT_EQ(out.failures[0], "Aorta command failed on [prepare hosts]: n2: exit 1: id: cannot find name for user ID 1001");
  EXPECT_EQ(h.state.host_owner, (std::map<std::string, std::string>{{"n1", "1000:1000"}}));
  EXPECT_FALSE(h.state.container_started);
  for (const char* host : {"n1", "n2"}) EXPECT_TRUE(h.fake.commands_with(host, "docker run").empty()) << host;
}

// A failed clone says what to do when compute nodes have no route to the URL.
TEST(StageBodies, CloneFailureAddsTheOfflineAdvice) {
  Harness h;
  h.v.aorta_auto_clone = true;
  h.v.aorta_clone_url = "https://git.example/aorta.git";
  h.fake.on("n2", "git clone", 128, "fatal: unable to access 'https://git.example/aorta.git/'");
  StageOutcome out = h.run(launch_container);
  ASSERT_EQ(out.failures.size(), 2u) << joined(out.failures);
  EXPECT_EQ(out.failures[0],
            "Aorta command failed on [clone Aorta]: n2: exit 128: fatal: unable to access 'https://git.example/aorta.git/'");
  EXPECT_EQ(out.failures[1],
            "If the nodes cannot reach https://git.example/aorta.git (compute nodes often cannot), clone Aorta from a "
            "login node into /scratch/alice/aorta and set aorta_auto_clone to false.");
  // Clone mode creates the checkout's parent, privately, and clones beside the target.
  EXPECT_EQ(h.fake.commands_with("n1", "( umask 077 && mkdir -p -- " + shell_quote("/scratch/alice") + " )").size(), 1u);
  EXPECT_EQ(h.fake.commands_with("n1", "git clone -q -- " + shell_quote("https://git.example/aorta.git")).size(), 1u);
  EXPECT_TRUE(h.fake.commands_with("n1", "docker run").empty());
}

TEST(StageBodies, MissingEntryPointsAreNamed) {
  Harness h;
  h.v.skip_rccl_build = false;  // the build script becomes an entry point
  h.fake.on("n1", "test -f", 1, "");
  StageOutcome out = h.run(launch_container);
  ASSERT_EQ(out.failures.size(), 1u);
  // Two nodes in auto mode: torchrun, so the train script, not the experiment script.
  EXPECT_EQ(out.failures[0],
            "Aorta entry points missing under aorta_path /scratch/alice/aorta (need config/overlap.yaml, "
            "scripts/build_rccl.sh, train.py): n1: exit 1: . Place Aorta there on each node, or set "
            "aorta_auto_clone and aorta_clone_url.");
  const std::string checks = "test -f " + shell_quote("/scratch/alice/aorta/config/overlap.yaml") + " && test -f " +
                             shell_quote("/scratch/alice/aorta/scripts/build_rccl.sh") + " && test -f " +
                             shell_quote("/scratch/alice/aorta/train.py");
  EXPECT_EQ(h.fake.commands_with("n2", checks).size(), 1u);
  EXPECT_TRUE(h.fake.commands_with("n1", "docker run").empty());
}

// --- setup_rdma -------------------------------------------------------------

// Audit J10: every /dev/infiniband device, by its path inside the container, is
// checked on every node; other devices are not.
TEST(StageBodies, SetupRdmaChecksEachInfinibandDevice) {
  Harness h;
  h.v.container.runtime = config::RuntimeKind::kNone;  // commands reach the node as built
  h.v.container.args.devices = {"/dev/kfd", "/dev/infiniband/uverbs0",
                                "/dev/infiniband/uverbs1:/dev/infiniband/uverbs9:rwm", "/dev/infiniband/rdma_cm"};
  StageOutcome out = h.run(setup_rdma);
  EXPECT_FALSE(out.failed()) << joined(out.failures);
  const std::string expected = "command -v torchrun && test -e " + shell_quote("/dev/infiniband/uverbs0") +
                               " && test -e " + shell_quote("/dev/infiniband/uverbs9") + " && test -e " +
                               shell_quote("/dev/infiniband/rdma_cm");
  for (const char* host : {"n1", "n2"}) EXPECT_EQ(h.fake.commands(host), std::vector<std::string>{expected}) << host;

  h.fake.on("n2", "uverbs9", 1, "");
  out = h.run(setup_rdma);
  ASSERT_EQ(out.failures.size(), 1u);
  EXPECT_EQ(out.failures[0], "Aorta command failed on [torchrun and RDMA devices]: n2: exit 1: ");
}

// --- build_rccl -------------------------------------------------------------

TEST(StageBodies, BuildRcclSkippedByConfig) {
  Harness h;
  StageOutcome out = h.run(build_rccl);
  EXPECT_TRUE(out.skipped());
  EXPECT_EQ(out.skip_reason, "skip_rccl_build=true");
  EXPECT_FALSE(out.failed());
  EXPECT_TRUE(h.fake.commands("n1").empty());
  EXPECT_TRUE(h.fake.commands("n2").empty());
}

// Audit J17/J18: the build is polled until every node is done, then stopped on every
// node; the poll's error is the stage's failure and a stop error only a note.
TEST(StageBodies, BuildRcclPollErrorBeatsStopError) {
  Harness h;
  h.v.skip_rccl_build = false;
  h.fake.on(kAny, "CVS_AORTA_PID=", 0, "CVS_AORTA_PID=777\n");
  h.fake.on("n1", "2>/dev/null; true; else", 0, "0\n");  // the exit file
  h.fake.on("n2", "2>/dev/null; true; else", 0, "3\n");  // the exit file
  h.fake.on("n1", "kill -KILL", 1, "kill: permission denied");
  StageOutcome out = h.run(build_rccl);
  ASSERT_EQ(out.failures.size(), 1u) << joined(out.failures);
  EXPECT_EQ(out.failures[0], "Aorta command failed on nodes: {n2: 3}");
  EXPECT_NE(joined(out.notes).find("Failed to stop RCCL build process groups: could not stop rccl: n1: exit 1: kill: "
                                   "permission denied"),
            std::string::npos)
      << joined(out.notes);
  for (const char* host : {"n1", "n2"}) {
    // The script ran from the container's mount, and was stopped by the pid it printed.
    EXPECT_EQ(h.fake.commands_with(host, "/workspace/aorta/scripts/build_rccl.sh").size(), 1u) << host;
    auto stops = h.fake.commands_with(host, "kill -KILL");
    ASSERT_EQ(stops.size(), 1u) << host;
    EXPECT_TRUE(contains(stops[0], "pid=777;")) << stops[0];
  }
  EXPECT_NE(joined(h.progress).find("[rccl] n2 exited with 3"), std::string::npos) << joined(h.progress);
}

// --- validate_thresholds ----------------------------------------------------

// Audit S6. The fixture's average is 11 ms (12000 and 10000 us per rank).
TEST(StageBodies, ThresholdsRecordOnlyWhenNotEnforced) {
  Harness h;
  h.v.thresholds = {{"max_avg_iteration_ms", 1.0}};
  h.state.result = metrics::aggregate({aorta::testing::rank_metrics(1, 12000, 9000, 4000),
                                       aorta::testing::rank_metrics(0, 10000, 8000, 3000)})
                       .value();
  h.v.enforce_thresholds = false;
  StageOutcome out = h.run(validate_thresholds);
  EXPECT_TRUE(out.skipped());
  EXPECT_EQ(out.skip_reason, "enforce_thresholds=false; metrics are recorded without threshold assertions");
  EXPECT_FALSE(out.failed());
  // Recorded: the threshold keeps its value and limit, skipped rather than failed.
  ASSERT_EQ(out.subtests.size(), 1u);
  EXPECT_EQ(out.subtests[0].outcome, Outcome::kSkipped);
  EXPECT_DOUBLE_EQ(*out.subtests[0].actual, 11.0);

  h.v.enforce_thresholds = true;
  out = h.run(validate_thresholds);
  EXPECT_FALSE(out.skipped());
  ASSERT_EQ(out.failures, std::vector<std::string>{"Average iteration time 11.00ms exceeds threshold 1ms"});
  ASSERT_EQ(out.subtests.size(), 1u);
  EXPECT_EQ(out.subtests[0].value, "max_avg_iteration_ms");
  EXPECT_FALSE(out.subtests[0].passed());
}

// --- teardown ---------------------------------------------------------------

// Audit S15, J29, J30: a stop failure does not stop the chown, the chown gives each
// node's checkout back to that node's recorded owner, containers are removed and
// locks released, and every error is in the one failure, in that order.
TEST(StageBodies, TeardownDoesEverythingAndJoinsEveryError) {
  Harness h;
  h.state.launched_phases = {"benchmark"};
  h.state.container_started = true;
  h.state.host_owner = {{"n1", "1000:1000"}, {"n2", "1001:1002"}};
  h.state.workdir_locks = {{"n1", 111}, {"n2", 222}};
  h.fake.on("n1", "benchmark.pid", 1, "kill: operation not permitted");
  h.fake.on("n2", "chown -R", 1, "chown: read-only file system");
  h.fake.on("n1", "docker rm -f", 1, "Error: No such container");
  StageOutcome out = h.run(teardown);
  ASSERT_EQ(out.failures.size(), 1u);
  EXPECT_EQ(out.failures[0],
            "could not stop benchmark: n1: exit 1: kill: operation not permitted; "
            "chown failed: n2: exit 1: chown: read-only file system; "
            "Aorta container teardown failed: n1: exit 1: Error: No such container");
  const std::string repo = shell_quote("/workspace/aorta");
  auto chown_of = [&](const std::string& host, const std::string& owner) {
    // The command runs inside the container: docker exec ... bash -c '<quoted>'.
    return h.fake.commands_with(host, shell_quote("chown -R " + shell_quote(owner) + " " + repo));
  };
  EXPECT_EQ(chown_of("n1", "1000:1000").size(), 1u);
  EXPECT_EQ(chown_of("n2", "1001:1002").size(), 1u);
  EXPECT_TRUE(h.fake.commands_with("n1", "1001:1002").empty());
  for (const char* host : {"n1", "n2"}) {
    EXPECT_EQ(h.fake.commands_with(host, "benchmark.pid").size(), 1u) << host;
    EXPECT_EQ(h.fake.commands_with(host, "docker rm -f " + shell_quote("alice_rocm_aorta_1")).size(), 1u) << host;
  }
  EXPECT_EQ(h.fake.commands_with("n1", "pid=111;").size(), 1u);  // the lock holder ended
  EXPECT_EQ(h.fake.commands_with("n2", "pid=222;").size(), 1u);
  EXPECT_TRUE(h.state.workdir_locks.empty());
  // No log was served: each missing one is a note, not a failure.
  EXPECT_NE(joined(out.notes).find("Could not collect benchmark log from n2"), std::string::npos) << joined(out.notes);
}

// Every node's phase logs in one batch: each that exists arrives with its bytes,
// each that does not is one note naming phase and node, and the training log is
// node 0's benchmark log.
TEST(StageBodies, CollectLogsFetchesEveryNodesLogsAndNamesTheMissingOnes) {
  Harness h;
  aorta::testing::TempDir dir;
  h.state.output_root = dir.path() / "out";
  h.state.launched_phases = {"rccl", "benchmark"};
  const std::string work = "scratch/alice/aorta/.cvs-aorta/" + h.state.run_id;
  dir.write("n1fs/" + work + "/node_0/rccl.log", "rccl on n1");
  dir.write("n1fs/" + work + "/node_0/benchmark.log", "training on n1");
  dir.write("n2fs/" + work + "/node_1/rccl.log", "rccl on n2");  // n2's benchmark log is missing
  h.fake.serve_files("n1", dir.path() / "n1fs");
  h.fake.serve_files("n2", dir.path() / "n2fs");
  NodeExec exec(h.fake, h.v, h.cluster);
  const std::vector<std::string> notes = collect_logs(exec, h.state);
  ASSERT_EQ(notes.size(), 1u) << joined(notes);
  EXPECT_TRUE(contains(notes[0], "Could not collect benchmark log from n2")) << notes[0];
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(read(h.state.artifacts.at("rccl_log_node_0")), "rccl on n1");
  EXPECT_EQ(read(h.state.artifacts.at("rccl_log_node_1")), "rccl on n2");
  EXPECT_EQ(read(h.state.artifacts.at("benchmark_log_node_0")), "training on n1");
  EXPECT_EQ(h.state.artifacts.count("benchmark_log_node_1"), 0u);
  EXPECT_EQ(h.state.artifacts.at("training_log"), h.state.artifacts.at("benchmark_log_node_0"));
  EXPECT_EQ(h.state.artifacts.at("rccl_log_node_1"), h.state.output_root / "rccl-node-1.log");
}

// Issue 29, 6: the raw copy in the run's folder is redacted like the report's copy
// (it was kept as the node wrote it, beside the redacted one).
TEST(StageBodies, CollectLogsKeepsOnlyRedactedCopies) {
  Harness h;
  aorta::testing::TempDir dir;
  h.state.output_root = dir.path() / "out";
  h.state.launched_phases = {"benchmark"};
  const std::string work = "scratch/alice/aorta/.cvs-aorta/" + h.state.run_id;
  forget_known_secrets();
  ASSERT_TRUE(add_known_secret("wandb-Kn0wn-v4lue"));
  dir.write("n1fs/" + work + "/node_0/benchmark.log",
            "step 1\nexport HF_TOKEN=abc123 && train.py --password hunter2x\nlogin wandb-Kn0wn-v4lue ok\n");
  dir.write("n2fs/" + work + "/node_1/benchmark.log", "password: |\n  hunter2x\nstep 2\n");
  h.fake.serve_files("n1", dir.path() / "n1fs");
  h.fake.serve_files("n2", dir.path() / "n2fs");
  NodeExec exec(h.fake, h.v, h.cluster);
  const std::vector<std::string> notes = collect_logs(exec, h.state);
  forget_known_secrets();
  EXPECT_TRUE(notes.empty()) << joined(notes);
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(read(h.state.artifacts.at("benchmark_log_node_0")),
            "step 1\nexport HF_TOKEN=<redacted> && train.py --password <redacted>\nlogin <redacted> ok\n");
  EXPECT_EQ(read(h.state.artifacts.at("benchmark_log_node_1")), "password: |\n  <redacted>\nstep 2\n");
  // Nothing else in the run's folder: no raw copy, no temporary file.
  size_t files = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(h.state.output_root)) files += e.is_regular_file();
  EXPECT_EQ(files, 2u);
}

// --- collect_traces_stage ---------------------------------------------------

// Audit S7, J22: per-host sub-tests in torchrun mode; one node's listing fails, the
// other's traces are still downloaded.
TEST(StageBodies, CollectionSubtestsNameTheFailingHost) {
  Harness h;
  aorta::testing::TempDir dir;
  h.v.container.runtime = config::RuntimeKind::kNone;  // listings are read from aorta_path itself
  h.v.multi_node.collect_traces = true;
  h.state.output_root = dir.path() / "out";
  const std::string trace = "torch_profiler/rank0/trace.json";
  dir.write("n1fs/scratch/alice/aorta/" + trace, "{\"traceEvents\": []}");
  h.fake.serve_files("n1", dir.path() / "n1fs");
  h.fake.on("n1", "find .", 0, "f\t1700000000.5\t19\t" + trace + std::string(1, '\0'));  // type, mtime, size, path
  h.fake.on("n2", "find .", 2, "find: '.': Permission denied");
  StageOutcome out = h.run(collect_traces_stage);
  ASSERT_EQ(out.subtests.size(), 2u);
  EXPECT_EQ(out.subtests[0].value, "n1");
  EXPECT_TRUE(out.subtests[0].passed());
  EXPECT_EQ(out.subtests[1].value, "n2");
  EXPECT_FALSE(out.subtests[1].passed());
  EXPECT_EQ(out.subtests[1].message, "Trace collection on n2: listing traces failed (exit 2): find: '.': Permission denied");
  EXPECT_EQ(out.failures, std::vector<std::string>{out.subtests[1].message});
  EXPECT_EQ(h.fake.downloads("n1"), std::vector<std::string>{"/scratch/alice/aorta/" + trace});
  EXPECT_TRUE(std::filesystem::is_regular_file(h.state.output_root / "combined_traces/node_0" / trace));
  EXPECT_EQ(h.state.artifacts.at("torch_traces"), h.state.output_root / "combined_traces");
}

// Audit S9: every host failing leaves no artifact, which is a sub-test of its own.
TEST(StageBodies, CollectionWithNoArtifactFailsItsOwnSubtest) {
  Harness h;
  aorta::testing::TempDir dir;
  h.v.container.runtime = config::RuntimeKind::kNone;
  h.v.multi_node.collect_traces = true;
  h.state.output_root = dir.path();
  h.fake.fail(kAny, "find .", Error{ErrorCode::kTimeout, "timed out after 60s", ""});
  StageOutcome out = h.run(collect_traces_stage);
  ASSERT_EQ(out.subtests.size(), 3u);
  EXPECT_EQ(out.subtests[0].message, "Trace collection on n1: timed out after 60s");
  EXPECT_EQ(out.subtests[1].message, "Trace collection on n2: timed out after 60s");
  EXPECT_EQ(out.subtests[2].value, "torch_traces");
  EXPECT_EQ(out.subtests[2].message, "No fresh torch_traces artifact was collected");
  EXPECT_EQ(out.failures.size(), 3u);
}

// Audit S9, as this suite words it: a node that answers but lists no fresh trace
// fails its own sub-test (no empty archive counts as collected), and the missing
// artifact is a failure of its own.
TEST(StageBodies, CollectionWithNothingFreshFailsTheNodeAndTheArtifact) {
  Harness h;
  aorta::testing::TempDir dir;
  h.v.container.runtime = config::RuntimeKind::kNone;
  h.v.multi_node.collect_traces = false;  // the head node only
  h.state.output_root = dir.path();
  h.fake.on("n1", "find .", 0, "");
  StageOutcome out = h.run(collect_traces_stage);
  ASSERT_EQ(out.subtests.size(), 2u);
  EXPECT_EQ(out.subtests[0].value, "n1");
  const std::string none = "Trace collection on n1: No fresh torch_profiler files found under " + h.v.node_repo_path() +
                           ": no file under a torch_profiler folder there. The workload writes its traces to "
                           "<training.output_dir>/torch_profiler, as " + h.v.base_config +
                           " sets it, relative to the folder it starts in: keep that folder inside aorta_path";
  EXPECT_EQ(out.subtests[0].message, none);
  EXPECT_EQ(out.subtests[1].value, "torch_traces");
  EXPECT_FALSE(out.subtests[1].passed());
  EXPECT_EQ(out.failures, (std::vector<std::string>{none, "No fresh torch_traces artifact was collected"}));
  EXPECT_TRUE(h.fake.downloads("n1").empty());
}

// Audit J23 (and P2's newest-tree rule): without collect_traces, only the head node
// is collected, and of its trees only the one with the newest file.
TEST(StageBodies, CollectionWithoutCombiningKeepsTheHeadsNewestTree) {
  Harness h;
  aorta::testing::TempDir dir;
  h.v.container.runtime = config::RuntimeKind::kNone;
  h.v.multi_node.collect_traces = false;
  h.state.output_root = dir.path() / "out";
  const std::string older = "run_a/torch_profiler/rank0/trace.json", newer = "run_b/torch_profiler/rank0/trace.json";
  dir.write("fs/scratch/alice/aorta/" + older, "{}");
  dir.write("fs/scratch/alice/aorta/" + newer, "{}");
  h.fake.serve_files("n1", dir.path() / "fs");
  const std::string nul(1, '\0');
  h.fake.on("n1", "find .", 0, "f\t1700000100\t2\t" + older + nul + "f\t1700000200\t2\t" + newer + nul);
  StageOutcome out = h.run(collect_traces_stage);
  EXPECT_FALSE(out.failed()) << joined(out.failures);
  ASSERT_EQ(out.subtests.size(), 1u);
  EXPECT_EQ(out.subtests[0].value, "n1");
  EXPECT_EQ(h.fake.downloads("n1"), std::vector<std::string>{"/scratch/alice/aorta/" + newer});
  EXPECT_TRUE(h.fake.downloads("n2").empty());
  EXPECT_EQ(h.state.artifacts.at("torch_traces"), h.state.output_root / "traces/run_b/torch_profiler");
}

// --- run_benchmark ----------------------------------------------------------

// Audit J3, J19, J28: the head node's probe picks the rendezvous port every node is
// given; the trace floor is each node's clock less 60 s; a node whose dmesg cannot be
// read is named, and a kernel error in the run's window fails the stage.
// 1700000000 is 2023-11-14T22:13:20Z, so the dmesg line below falls in the window.
TEST(StageBodies, BenchmarkUsesTheHeadsPortAndScansEveryNode) {
  Harness h;
  h.v.container.runtime = config::RuntimeKind::kNone;
  h.v.multi_node.master_port = 0;
  h.fake.on("n1", "import socket", 0, "29512\n");
  h.fake.on("n2", "import socket", 0, "31000\n");
  h.fake.on(kAny, "date +%s.%N", 0, "1700000000.25\n");
  h.fake.on(kAny, "CVS_AORTA_PID=", 0, "CVS_AORTA_PID=555\n");
  h.fake.on(kAny, "2>/dev/null; true; else", 0, "0\n");  // the exit file
  h.fake.on("n1", "dmesg --time-format iso", 0, "2023-11-14T22:13:20,500000+00:00 amdgpu: GPU reset begin!\n");
  h.fake.on("n2", "dmesg --time-format iso", 1, "sudo: a password is required");
  StageOutcome out = h.run(run_benchmark);
  EXPECT_EQ(h.state.status, RunStatus::kCompleted);
  EXPECT_EQ(h.state.trace_floor, (std::map<std::string, double>{{"n1", 1699999940.25}, {"n2", 1699999940.25}}));
  for (const char* host : {"n1", "n2"}) {
    auto scripts = h.fake.commands_with(host, "--master_port=");
    ASSERT_EQ(scripts.size(), 1u) << host;
    EXPECT_TRUE(contains(scripts[0], "--master_port=29512")) << scripts[0];
    EXPECT_TRUE(contains(scripts[0], "--master_addr=" + shell_quote("10.0.0.1"))) << scripts[0];
    EXPECT_EQ(h.fake.commands_with(host, "benchmark.pid").size(), 2u) << host;  // started, then stopped
  }
  EXPECT_EQ(out.failures,
            (std::vector<std::string>{"Dmesg scan incomplete: failed hosts [n2]. Give the job user passwordless `sudo "
                                      "dmesg` on those nodes.",
                                      "ERROR - Failure pattern *** 2023-11-14T22:13:20,500000+00:00 amdgpu: GPU reset "
                                      "begin! *** seen in Dmesg on node n1"}));
  EXPECT_EQ(h.state.kernel_log_matches.size(), 1u);
  EXPECT_TRUE(h.fake.commands_with("n2", "import socket").empty());  // audit J3: only the head picks the port
}

// Issue 16: each node's training log tail is in the stage's log, a node whose log
// cannot be read says why.
TEST(StageBodies, BenchmarkLogKeepsEachNodesTrainingTail) {
  Harness h;
  h.v.container.runtime = config::RuntimeKind::kNone;
  h.v.multi_node.master_port = 0;
  h.fake.on("n1", "import socket", 0, "29512\n");
  h.fake.on(kAny, "date +%s.%N", 0, "1700000000.25\n");
  h.fake.on(kAny, "CVS_AORTA_PID=", 0, "CVS_AORTA_PID=555\n");
  h.fake.on(kAny, "2>/dev/null; true; else", 0, "0\n");  // the exit file
  h.fake.on("n1", "| tail -n 20", 0, "step 9 loss 0.25\nCVS_AORTA_EXIT=0\n");
  h.fake.on("n2", "| tail -n 20", 1, "tail: cannot open 'benchmark.log'");
  StageOutcome out = h.run(run_benchmark);
  auto tails = h.fake.commands_with("n1", "| tail -n 20");
  ASSERT_EQ(tails.size(), 1u) << joined(out.failures);
  EXPECT_TRUE(contains(tails[0], "/node_0/benchmark.log")) << tails[0];
  EXPECT_TRUE(contains(h.fake.commands_with("n2", "| tail -n 20").at(0), "/node_1/benchmark.log"));
  const std::string log = joined(out.notes);
  EXPECT_TRUE(contains(log, "n1 benchmark.log, last lines:\n  step 9 loss 0.25\n  CVS_AORTA_EXIT=0")) << log;
  EXPECT_TRUE(contains(log, "n2 benchmark.log could not be read: tail: cannot open 'benchmark.log'")) << log;
}

// Audit J3: without a configured master_addr or a vpc_ip, the head node's name is
// the rendezvous address.
TEST(StageBodies, BenchmarkRendezvousFallsBackToTheHeadsName) {
  Harness h;
  h.v.container.runtime = config::RuntimeKind::kNone;
  h.cluster.nodes = {{"node-a", "", ""}, {"node-b", "", ""}};
  h.fake.on("node-a", "import socket", 0, "29512\n");
  h.fake.on(kAny, "date +%s.%N", 0, "1700000000.25\n");
  h.fake.on(kAny, "CVS_AORTA_PID=", 0, "CVS_AORTA_PID=555\n");
  h.fake.on(kAny, "2>/dev/null; true; else", 0, "0\n");  // the exit file
  StageOutcome out = h.run(run_benchmark);
  EXPECT_EQ(h.state.status, RunStatus::kCompleted) << joined(out.failures);
  for (const char* host : {"node-a", "node-b"}) {
    auto scripts = h.fake.commands_with(host, "--master_addr=");
    ASSERT_EQ(scripts.size(), 1u) << host;
    EXPECT_TRUE(contains(scripts[0], "--master_addr=" + shell_quote("node-a"))) << scripts[0];
    EXPECT_TRUE(contains(scripts[0], "export MASTER_ADDR=" + shell_quote("node-a"))) << scripts[0];
  }
}

TEST(StageBodies, BenchmarkRefusesABadPortFromTheHead) {
  Harness h;
  h.v.container.runtime = config::RuntimeKind::kNone;
  h.v.multi_node.master_port = 0;
  h.fake.on("n1", "import socket", 0, "80\n");
  StageOutcome out = h.run(run_benchmark);
  EXPECT_EQ(out.failures, std::vector<std::string>{"Invalid rendezvous port returned by head node n1"});
  EXPECT_FALSE(h.state.benchmark_started);
  EXPECT_TRUE(h.fake.commands_with("n1", "CVS_AORTA_PID=").empty());
}

// --- analyze and parse_results ----------------------------------------------

// Audit J24: a missing TraceLens only warns; the raw traces are still the result.
TEST(StageBodies, AnalysisFailureOnlyWarns) {
  Harness h;
  h.v.analysis.enable_tracelens = true;
  h.v.analysis.tracelens_script = "scripts/tracelens.sh";
  h.state.trace_trees["n1"] = {"torch_profiler"};
  h.fake.on("n1", "import TraceLens", 1, "ModuleNotFoundError: No module named 'TraceLens'");
  StageOutcome out = h.run(analyze);
  EXPECT_FALSE(out.failed()) << joined(out.failures);
  ASSERT_EQ(out.notes.size(), 1u);
  EXPECT_EQ(out.notes[0], "Optional tracelens_analysis failed; raw traces remain available: n1: exit 1: "
                          "ModuleNotFoundError: No module named 'TraceLens'");
  EXPECT_TRUE(h.fake.commands("n2").empty());  // the head node only
}

// Audit R1: a run that did not succeed is still parsed, with a warning naming why.
TEST(StageBodies, ParseWarnsWhenTheRunFailed) {
  Harness h;
  h.state.status = RunStatus::kFailed;
  h.state.error_message = "Aorta command failed on nodes: {n2: 1}";
  StageOutcome out = h.run(parse_results);
  EXPECT_EQ(out.notes, std::vector<std::string>{"Run did not succeed: Aorta command failed on nodes: {n2: 1}"});
  EXPECT_EQ(out.failures, std::vector<std::string>{"No torch_traces artifact; cannot parse benchmark metrics"});
  h.state.status = RunStatus::kCompleted;
  EXPECT_TRUE(h.run(parse_results).notes.empty());  // audit R3
}

// Audit S12: traces that give no rank leave no result, and the stage fails saying so
// (the reference's "aggregation produced no benchmark result"; here the parse reports
// it first, with each file's error).
TEST(StageBodies, ParseWithoutUsableTracesFailsWithoutAResult) {
  Harness h;
  aorta::testing::TempDir dir;
  dir.write("traces/torch_profiler/rank0/trace.json", R"({"traceEvents": [{"ph":"X","ts":)");
  h.state.status = RunStatus::kCompleted;
  h.state.artifacts["torch_traces"] = dir.path() / "traces";
  StageOutcome out = h.run(parse_results);
  ASSERT_EQ(out.failures.size(), 1u) << joined(out.notes);
  EXPECT_TRUE(out.failures[0].starts_with("Aorta parsing produced no usable metrics: [")) << out.failures[0];
  EXPECT_TRUE(contains(out.failures[0], "trace.json")) << out.failures[0];
  EXPECT_FALSE(h.state.result.has_value());
}

// Issue 29, 5: a rank that was expected and not parsed (its trace unreadable or
// missing) fails the stage, naming it; the good ranks' result stays for the reports.
TEST(StageBodies, ParseFailsWhenAnExpectedRankIsMissing) {
  Harness h;
  h.v.gpus_per_node = 1;  // 2 nodes x 1 rank
  aorta::testing::TempDir dir;
  std::filesystem::create_directories(dir.path() / "traces" / "rank0");
  std::filesystem::copy_file(std::string(AORTA_TEST_DATA_DIR) + "/h200-torch2.11-kineto-nccl_rank0.json.gz",
                             dir.path() / "traces" / "rank0" / "t.json.gz");
  dir.write("traces/rank1/t.json", R"({"traceEvents": [{"ph":"X","ts":)");  // cut short
  h.state.status = RunStatus::kCompleted;
  h.state.artifacts["torch_traces"] = dir.path() / "traces";
  StageOutcome out = h.run(parse_results);
  ASSERT_EQ(out.failures.size(), 1u) << joined(out.notes);
  EXPECT_TRUE(out.failures[0].starts_with("1 of 2 expected rank(s) parsed (2 node(s) x 1); missing: rank 1 (")) << out.failures[0];
  EXPECT_TRUE(contains(out.failures[0], "rank1/t.json")) << out.failures[0];
  EXPECT_TRUE(h.state.result.has_value());  // the reports still show rank 0
  std::filesystem::remove(dir.path() / "traces" / "rank1" / "t.json");
  std::filesystem::copy_file(std::string(AORTA_TEST_DATA_DIR) + "/h200-torch2.11-kineto-nccl_rank1.json.gz",
                             dir.path() / "traces" / "rank1" / "t.json.gz");
  EXPECT_TRUE(h.run(parse_results).failures.empty());
}

}  // namespace
}  // namespace aorta::job
