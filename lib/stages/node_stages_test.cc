// The stages that prepare the nodes and clean them up (launch, RDMA, RCCL build,
// teardown), driven through the shared harness (tests/stage_harness.h).
#include <gtest/gtest.h>

#include <fstream>

#include "redact/known_secrets.h"
#include "common/shell_quote.h"
#include "job/collect.h"
#include "metrics/run_metrics.h"
#include "tests/stage_harness.h"
#include "tests/rank_fixture.h"
#include "tests/temp_dir.h"

namespace aorta::stages {
namespace {

// --- launch_container -------------------------------------------------------

// Audit J7/J8: uid:gid recorded per node for teardown's chown; each node's render gid
// joins the container's groups in node order (not sorted), after video.
TEST(StageBodies, LaunchRecordsOwnersAndRenderGroupsInNodeOrder) {
  Harness h;
  h.fake.on("n1", "id -u && id -g", 0, "1000\n1000\n110\n");
  h.fake.on("n2", "id -u && id -g", 0, "1001\n1002\n109\n");
  h.fake.on(kAny, "CVS_AORTA_JOINED", 0, "CVS_AORTA_LOCK=4242\n");
  h.fake.on(kAny, "docker ps -q", 0, "AORTA_DOCKER=direct\n");  // the daemon is reachable without sudo
  h.fake.on(kAny, "docker inspect", 0, "true\n");
  StageResult out = h.run(stages::kLaunchContainer);
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
  StageResult out = h.run(stages::kLaunchContainer);
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
  StageResult out = h.run(stages::kLaunchContainer);
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
  StageResult out = h.run(stages::kLaunchContainer);
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
  StageResult out = h.run(stages::kSetupRdma);
  EXPECT_FALSE(out.failed()) << joined(out.failures);
  const std::string expected = "command -v torchrun && test -e " + shell_quote("/dev/infiniband/uverbs0") +
                               " && test -e " + shell_quote("/dev/infiniband/uverbs9") + " && test -e " +
                               shell_quote("/dev/infiniband/rdma_cm");
  for (const char* host : {"n1", "n2"}) EXPECT_EQ(h.fake.commands(host), std::vector<std::string>{expected}) << host;

  h.fake.on("n2", "uverbs9", 1, "");
  out = h.run(stages::kSetupRdma);
  ASSERT_EQ(out.failures.size(), 1u);
  EXPECT_EQ(out.failures[0], "Aorta command failed on [torchrun and RDMA devices]: n2: exit 1: ");
}

// --- build_rccl -------------------------------------------------------------

TEST(StageBodies, BuildRcclSkippedByConfig) {
  Harness h;
  StageResult out = h.run(stages::kBuildRccl);
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
  h.fake.on("n1", "cvs_aorta_exit=$(cat ", 0, "0\n");  // the exit file
  h.fake.on("n2", "cvs_aorta_exit=$(cat ", 0, "3\n");  // the exit file
  h.fake.on("n1", "kill -KILL", 1, "kill: permission denied");
  StageResult out = h.run(stages::kBuildRccl);
  ASSERT_EQ(out.failures.size(), 1u) << joined(out.failures);
  EXPECT_EQ(out.failures[0], "Aorta command failed on nodes: {n2: 3}");
  EXPECT_NE(joined(out.log).find("Failed to stop RCCL build process groups: could not stop rccl: n1: exit 1: kill: "
                                   "permission denied"),
            std::string::npos)
      << joined(out.log);
  for (const char* host : {"n1", "n2"}) {
    // The script ran from the container's mount, and was stopped by the pid it printed.
    EXPECT_EQ(h.fake.commands_with(host, "/workspace/aorta/scripts/build_rccl.sh").size(), 1u) << host;
    auto stops = h.fake.commands_with(host, "kill -KILL");
    ASSERT_EQ(stops.size(), 1u) << host;
    EXPECT_TRUE(contains(stops[0], "pid=777;")) << stops[0];
  }
  EXPECT_NE(joined(h.progress).find("[rccl] n2 exited with 3"), std::string::npos) << joined(h.progress);
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
  // No log is there: the node-side copy says so (exit 65) as it would.
  h.fake.on(kAny, "/benchmark.log", 65, "benchmark.log: No such file or directory (a link, or no longer there)");
  StageResult out = h.run(stages::kTeardown);
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
  EXPECT_NE(joined(out.log).find("Could not collect benchmark log from n2"), std::string::npos) << joined(out.log);
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
  h.fake.on("n2", "node_1/benchmark.log", 65, "benchmark.log: No such file or directory (a link, or no longer there)");
  job::NodeExec exec(h.fake, h.v, h.cluster);
  const std::vector<std::string> notes = job::collect_logs(exec, h.state);
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
  redact::forget_known_secrets();
  ASSERT_TRUE(redact::add_known_secret("wandb-Kn0wn-v4lue"));
  dir.write("n1fs/" + work + "/node_0/benchmark.log",
            "step 1\nexport HF_TOKEN=abc123 && train.py --password hunter2x\nlogin wandb-Kn0wn-v4lue ok\n");
  dir.write("n2fs/" + work + "/node_1/benchmark.log", "password: |\n  hunter2x\nstep 2\n");
  h.fake.serve_files("n1", dir.path() / "n1fs");
  h.fake.serve_files("n2", dir.path() / "n2fs");
  job::NodeExec exec(h.fake, h.v, h.cluster);
  const std::vector<std::string> notes = job::collect_logs(exec, h.state);
  redact::forget_known_secrets();
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

}  // namespace
}  // namespace aorta::stages
