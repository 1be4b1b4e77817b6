// Launch commands and phase scripts, including real bash running the scripts.
#include "job/launch.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "common/shell_quote.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

config::Variant variant() {
  config::Variant v;
  v.aorta_path = "/scratch/alice/repo";
  v.container_mount_path = "/mnt";
  v.base_config = "config/profile_overlap_2gpu.yaml";
  v.experiment_script = "scripts/launch_rocm.sh";
  v.gpus_per_node = 2;
  v.training_overrides = {{"training.max_steps", "15"}, {"output_dir", "space and 'quote"}};
  return v;
}

TEST(Launch, ModeFollowsNodeCount) {
  config::Variant v = variant();
  EXPECT_EQ(launch_mode(v, 1), LaunchMode::kScript);
  EXPECT_EQ(launch_mode(v, 2), LaunchMode::kTorchrun);
  v.multi_node.master_launch_mode = "torchrun";
  EXPECT_EQ(launch_mode(v, 1), LaunchMode::kTorchrun);
}

TEST(Launch, EffectiveEnvDefaultsAndOverrides) {
  config::Variant v = variant();
  v.container.env = {{"A", "a b"}};
  v.multi_node.extra_env = {{"NCCL_MAX_NCHANNELS", "64"}};
  auto env = effective_env(v);
  auto get = [&](const std::string& k) {
    for (const auto& [key, val] : env)
      if (key == k) return val;
    return std::string("<absent>");
  };
  EXPECT_EQ(env.front().first, "A");
  EXPECT_EQ(get("A"), "a b");
  EXPECT_EQ(get("NCCL_MAX_NCHANNELS"), "64");
  EXPECT_EQ(get("TENSILE_STREAMK_MAX_CUS"), "192");  // 256 - 64
  EXPECT_EQ(get("rccl_path"), "/mnt/rccl");
  EXPECT_EQ(get("AORTA_OVERRIDE_ARGS"), "--override training.max_steps=15 output_dir=space and 'quote");
  EXPECT_EQ(get("OMP_NUM_THREADS"), "1");
  EXPECT_EQ(nccl_channels(v), 64);
}

TEST(Launch, ScriptAndTorchrunCommandsSurviveShellSplitting) {
  config::Variant v = variant();
  cluster::LocalTransport local;
  // Replace bash with printf so the shell shows how it split the words.
  std::string script = script_mode_command(v);
  auto r = local.run("localhost", "set -- " + script + "; printf '<%s>' \"$@\"", std::chrono::seconds(10));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->output,
            "<bash></mnt/scripts/launch_rocm.sh></mnt/config/profile_overlap_2gpu.yaml><--override>"
            "<training.max_steps=15><output_dir=space and 'quote>");
  std::string torchrun = torchrun_command(v, {"fabric-a", 29500}, 2, 1);
  EXPECT_NE(torchrun.find("--nnodes=2 --node_rank=1 --nproc_per_node=2 --master_addr=fabric-a --master_port=29500"),
            std::string::npos);
  size_t first = torchrun.find("--override");
  EXPECT_EQ(torchrun.find("--override", first + 1), std::string::npos);  // exactly one group
  auto inner = local.run("localhost", "set -- " + torchrun + "; printf '%s' \"$3\"", std::chrono::seconds(10));
  ASSERT_TRUE(inner.ok());
  auto words = local.run("localhost", "set -- " + inner->output + "; printf '<%s>' \"$@\"", std::chrono::seconds(10));
  EXPECT_NE(words->output.find("<output_dir=space and 'quote>"), std::string::npos) << words->output;
}

TEST(Launch, PhaseScriptsRunUnderRealBash) {
  aorta::testing::TempDir dir;
  config::Variant v = variant();
  v.container.runtime = config::RuntimeKind::kNone;
  v.aorta_path = dir.path().string();
  v.container.env = {{"TRICKY", "literal $(false) and 'quotes'"}};
  cluster::LocalTransport local;
  for (int rank : {0, 3}) {
    const auto exit_file = dir.path() / "it's exit";  // a quote in the path stays data
    std::string body = phase_script(v, rank, {"head", 0}, "printf '%s\\n' \"$TRICKY\"; exit " + std::to_string(rank),
                                    exit_file.string());
    auto path = dir.write("phase.sh", body);
    auto r = local.run("localhost", "bash " + shell_quote(path.string()), std::chrono::seconds(10));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->exit_code, rank);
    EXPECT_NE(r->output.find("literal $(false) and 'quotes'"), std::string::npos) << r->output;
    EXPECT_NE(r->output.find("\nCVS_AORTA_EXIT=" + std::to_string(rank) + "\n"), std::string::npos);  // for the reader
    std::ifstream status(exit_file);
    EXPECT_EQ(exit_code_from_status(std::string(std::istreambuf_iterator<char>(status), {})), rank);
  }
  EXPECT_EQ(exit_code_from_status(""), -1);
  EXPECT_EQ(exit_code_from_status("7\n"), 7);
  EXPECT_EQ(exit_code_from_status("x\n"), -1);
  EXPECT_EQ(exit_code_from_status("999999999999"), -1);
}

// The wrapper's marker is in the log before its exit file exists: a poll reads the exit
// file first, then the log, and so always sees the whole log of a finished node. The
// training fills the log pipe to the brim, so the wrapper's trap stops on its first
// write to it; while it is stopped there, no exit file may exist yet.
TEST(Launch, ExitMarkerIsWrittenBeforeTheExitFile) {
  aorta::testing::TempDir dir;
  config::Variant v = variant();
  v.container.runtime = config::RuntimeKind::kNone;
  v.aorta_path = dir.path().string();
  int log[2];
  ASSERT_EQ(pipe2(log, O_CLOEXEC), 0);
  const int capacity = fcntl(log[0], F_GETPIPE_SZ);
  ASSERT_GT(capacity, 0);
  const auto exit_file = dir.path() / "phase.exit";
  auto script = dir.write("phase.sh", phase_script(v, 0, {"head", 0}, "head -c " + std::to_string(capacity) + " /dev/zero",
                                                   exit_file.string()));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, log[1], STDOUT_FILENO);
  std::string bash = "/bin/bash", path = script.string();
  char* argv[] = {bash.data(), path.data(), nullptr};
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, bash.c_str(), &actions, nullptr, argv, environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  close(log[1]);
  // The wrapper's own bash blocked in write(2): /proc/PID/syscall starts with its number, 1.
  auto in_write = [pid] {
    std::ifstream syscall("/proc/" + std::to_string(pid) + "/syscall");
    std::string number;
    return syscall >> number && number == "1";
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!in_write() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(in_write()) << "the wrapper never blocked on the full log";
  EXPECT_FALSE(std::filesystem::exists(exit_file)) << "the exit file came before the marker";
  std::string out;
  char buf[65536];
  for (ssize_t n; (n = read(log[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  close(log[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(out.substr(static_cast<size_t>(capacity)), "\nCVS_AORTA_EXIT=0\n");
  std::ifstream written(exit_file);
  EXPECT_EQ(exit_code_from_status(std::string(std::istreambuf_iterator<char>(written), {})), 0);
}

// A log that cannot be written (here /dev/full: ENOSPC) must not cost the exit file: set -e
// would end the trap at the marker, and the head would wait out the phase's timeout.
TEST(Launch, TheExitFileIsWrittenWhenTheLogCannotBe) {
  aorta::testing::TempDir dir;
  config::Variant v = variant();
  v.container.runtime = config::RuntimeKind::kNone;
  v.aorta_path = dir.path().string();
  const auto exit_file = dir.path() / "phase.exit";
  auto script = dir.write("phase.sh", phase_script(v, 0, {"head", 0}, "exit 7", exit_file.string()));
  cluster::LocalTransport local;
  auto r = local.run("localhost", "bash " + shell_quote(script.string()) + " > /dev/full", std::chrono::seconds(10));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 7) << r->output;
  std::ifstream status(exit_file);
  EXPECT_EQ(exit_code_from_status(std::string(std::istreambuf_iterator<char>(status), {})), 7);
}

// Issue 14: every element of extra_torchrun_args / extra_train_args is one argument
// and stays data, through both the outer shell and torchrun_command's bash -lc.
TEST(Launch, ExtraArgumentsAreOneQuotedArgumentEach) {
  aorta::testing::TempDir dir;
  config::Variant v = variant();
  std::string canary = (dir.path() / "canary").string();
  v.multi_node.extra_torchrun_args = {"--rdzv-conf=a b", "$(touch " + canary + ")"};
  v.multi_node.extra_train_args = {"`touch " + canary + "`", "x;touch " + canary, "'q'"};
  std::string command = torchrun_command(v, {"fabric-a", 29500}, 2, 1);
  cluster::LocalTransport local;
  // An exported function stands in for torchrun and shows each argument it got.
  auto r = local.run("localhost",
                     "torchrun() { printf '<%s>' \"$@\"; }; export -f torchrun; cd " + shell_quote(dir.path().string()) +
                         " && " + command,
                     std::chrono::seconds(20));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 0) << r->output;
  EXPECT_FALSE(std::filesystem::exists(canary)) << "an extra argument ran as shell code";
  EXPECT_NE(r->output.find("<--master_port=29500><--rdzv-conf=a b><$(touch " + canary + ")></mnt/train.py>"),
            std::string::npos)
      << r->output;
  EXPECT_NE(r->output.find("<`touch " + canary + "`><x;touch " + canary + "><'q'>"), std::string::npos) << r->output;
}

// A channel count that is not a number must not throw out of a stage.
TEST(Launch, ChannelCountThatIsNotANumberDoesNotThrow) {
  config::Variant v = variant();
  for (const char* bad : {"abc", "", "99999999999999999999", "12x"}) {
    v.multi_node.extra_env = {{"NCCL_MAX_NCHANNELS", bad}};
    config::KeyValues env;
    ASSERT_NO_THROW(env = effective_env(v)) << bad;
    for (const auto& [k, val] : env) EXPECT_NE(k, "TENSILE_STREAMK_MAX_CUS") << bad;
    int channels = 0;
    ASSERT_NO_THROW(channels = nccl_channels(v)) << bad;
    EXPECT_EQ(channels, 112) << bad;
  }
}

TEST(Launch, OutputDirOverrideIsDetected) {
  config::Variant v = variant();
  EXPECT_FALSE(sets_output_dir(v));  // "output_dir" alone is not training.output_dir
  v.training_overrides.emplace_back("training.output_dir", "/x");
  EXPECT_TRUE(sets_output_dir(v));
}

}  // namespace
}  // namespace aorta::job
