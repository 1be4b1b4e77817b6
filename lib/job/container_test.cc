// The docker launch as the original starts it, run by a real bash: the argv that
// reaches docker, the per-node sudo -n fallback, the pull, the lifetime rules and
// the teardown's record of failed removals. "docker" and "sudo" are small shell
// programs on PATH that keep per-node state in files, so each node can differ.
#include "job/container.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "common/shell_quote.h"
#include "job/registry_login.h"
#include "stages/specs.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {
namespace fs = std::filesystem;
using stages::StageResult;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The exact argv docker gets: printf stands in for docker and prints one argument a line.
TEST(DockerRun, DefaultsThenConfiguredEachOneArgument) {
  aorta::testing::TempDir dir;
  std::string d = dir.path().string();
  dir.write("kfd", "");
  dir.write("ib/mlx5_0", "");
  dir.write("ib/rdma_cm", "");
  fs::create_directories(dir.path() / "ssh");
  config::Variant v;
  v.container.image = "img:1";
  auto& a = v.container.args;
  a.volumes = {"/a b:/mnt"};
  a.devices = {d + "/ib/rdma_cm"};
  a.cap_add = {"SYS_PTRACE", "NET_ADMIN"};
  a.security_opt = {"seccomp=unconfined", "label=disable"};
  a.ulimit = {"memlock=-1:-1", "stack=67108864:67108864"};
  v.container.env = {{"GPUS", "2"}, {"X", "it's $HOME"}};
  LaunchSpec spec;
  spec.docker = "printf '%s\\n'";
  spec.groups = {"video", "109"};
  spec.ssh_dir = d + "/ssh";
  spec.default_devices = {d + "/kfd", d + "/dri", d + "/ib/*"};
  cluster::LocalTransport local;
  auto r = local.run("localhost", docker_run_command(v, "u_img", spec), std::chrono::seconds(10));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->exit_code, 0) << r->output;
  // By hand: configured args first as before, then the merged defaults; kfd and the
  // ib devices the node has (rdma_cm only once: it is configured), no dri (absent);
  // the .ssh mount; the configured memlock replaces the default; GPUS=2 replaces 8.
  std::vector<std::string> want = {
      "run", "-d", "--name", "u_img", "--network", "host", "--ipc", "host", "--privileged",
      "-v", "/a b:/mnt", "--device", d + "/ib/rdma_cm",
      "--cap-add", "IPC_LOCK", "--cap-add", "SYS_ADMIN", "--cap-add", "SYS_PTRACE", "--cap-add", "NET_ADMIN",
      "--security-opt", "apparmor=unconfined", "--security-opt", "seccomp=unconfined",
      "--security-opt", "label=disable",
      "--group-add", "video", "--group-add", "109",
      "--ulimit", "memlock=-1:-1", "--ulimit", "stack=67108864:67108864",
      "-e", "GPUS=2", "-e", "MULTINODE=true", "-e", "X=it's $HOME",
      "--device", d + "/kfd:" + d + "/kfd", "--device", d + "/ib/mlx5_0:" + d + "/ib/mlx5_0",
      "-v", d + "/ssh:/host_ssh",
      "img:1", "sleep", "infinity"};
  EXPECT_EQ(lines_of(r->output), want) << r->output;

  // Nothing configured: every default, memlock=-1 included; no .ssh folder, no mount.
  config::Variant plain;
  plain.container.image = "img:1";
  spec.ssh_dir = d + "/nossh";
  r = local.run("localhost", docker_run_command(plain, "n", spec), std::chrono::seconds(10));
  ASSERT_TRUE(r.ok());
  std::vector<std::string> want_plain = {
      "run", "-d", "--name", "n", "--network", "host", "--ipc", "host", "--privileged",
      "--cap-add", "SYS_PTRACE", "--cap-add", "IPC_LOCK", "--cap-add", "SYS_ADMIN",
      "--security-opt", "seccomp=unconfined", "--security-opt", "apparmor=unconfined",
      "--group-add", "video", "--group-add", "109", "--ulimit", "memlock=-1",
      "-e", "GPUS=8", "-e", "MULTINODE=true",
      "--device", d + "/kfd:" + d + "/kfd", "--device", d + "/ib/mlx5_0:" + d + "/ib/mlx5_0",
      "--device", d + "/ib/rdma_cm:" + d + "/ib/rdma_cm",
      "img:1", "sleep", "infinity"};
  EXPECT_EQ(lines_of(r->output), want_plain) << r->output;
}

// Each command runs with the stand-in docker/sudo on PATH and knows its node.
class PerHostTransport final : public cluster::Transport {
 public:
  explicit PerHostTransport(fs::path bin) : bin_(std::move(bin)) {}
  Result<cluster::CommandResult> run(const std::string& host, const std::string& command,
                                     std::chrono::seconds timeout) override {
    return local_.run(host, "export PATH=" + shell_quote(bin_.string()) + ":\"$PATH\" AORTA_TEST_HOST=" +
                                shell_quote(host) + "; " + command,
                      timeout);
  }
  Status download(const std::string& host, const std::string& remote, const fs::path& local,
                  uint64_t max_bytes) override {
    return local_.download(host, remote, local, max_bytes);
  }
  std::string name() const override { return "per-host local"; }

 private:
  cluster::LocalTransport local_;
  fs::path bin_;
};

// State per node under $STATE/<host>: deny (docker refuses the user), nosudo,
// image, pull_fails, running_<name>, rm_fails_once, logged_in (login took the
// password in $STATE/password on stdin; its stdin and environment are kept), and
// $STATE/private: a pull needs that login. Every call is logged.
constexpr const char* kDocker = R"(#!/bin/bash
s="$STATE/$AORTA_TEST_HOST"; mkdir -p "$s"
echo "$AORTA_TEST_HOST ${SUDO_DOCKER:+sudo }docker $*" >> "$STATE/log"
if [ -e "$s/deny" ] && [ -z "$SUDO_DOCKER" ]; then echo "permission denied on docker.sock" >&2; exit 1; fi
case "$1" in
  ps) exit 0;;
  inspect) [ -e "$s/running_${@: -1}" ] && echo true && exit 0; echo "no such container" >&2; exit 1;;
  image) [ -e "$s/image" ];;
  login) cat > "$s/login_stdin"; env > "$s/login_env"
         cmp -s "$s/login_stdin" "$STATE/password" || { echo "unauthorized: incorrect username or password" >&2; exit 1; }
         touch "$s/logged_in";;
  pull) [ -e "$s/pull_fails" ] && { echo "pull access denied for $2" >&2; exit 1; }
        [ -e "$STATE/private" ] && [ ! -e "$s/logged_in" ] && { echo "pull access denied for $2" >&2; exit 1; }
        touch "$s/image";;
  run) while [ "$1" != --name ]; do shift; done; touch "$s/running_$2"; echo cid;;
  rm) [ -e "$s/rm_fails_once" ] && { rm "$s/rm_fails_once"; echo "rm: device busy" >&2; exit 1; }
      rm -f "$s/running_${@: -1}";;
  exec) shift 2; "$@";;
esac
)";
constexpr const char* kSudo = R"(#!/bin/bash
[ "$1" = -n ] && shift
[ -e "$STATE/$AORTA_TEST_HOST/nosudo" ] && { echo "sudo: a password is required" >&2; exit 1; }
SUDO_DOCKER=1 exec "$@"
)";

class Containers : public ::testing::Test {
 protected:
  void SetUp() override {
    bin_ = dir_.path() / "bin";
    state_ = dir_.path() / "state";
    fs::create_directories(bin_);
    for (auto [name, text] : {std::pair{"docker", kDocker}, std::pair{"sudo", kSudo}}) {
      dir_.write("bin/" + std::string(name), text);
      fs::permissions(bin_ / name, fs::perms::owner_all);
    }
    for (const auto* h : {"n1", "n2"}) fs::create_directories(state_ / h);
    setenv("STATE", state_.string().c_str(), 1);
    variant_.container.image = "reg/img:1";
    variant_.container.name = "aorta_c";
    variant_.aorta_path = (dir_.path() / "repo").string();
    cluster_ = config::local_cluster("tester");
    cluster_.nodes = {{"n1", "", ""}, {"n2", "", ""}};
  }
  void touch(const std::string& host, const std::string& file) { dir_.write("state/" + host + "/" + file, ""); }
  bool exists(const std::string& host, const std::string& file) { return fs::exists(state_ / host / file); }
  std::string log() { return read(state_ / "log"); }

  aorta::testing::TempDir dir_;
  fs::path bin_, state_;
  config::Variant variant_;
  config::Cluster cluster_;
};

TEST_F(Containers, SudoFallbackPerNodeForEveryDockerCommand) {
  touch("n2", "deny");
  PerHostTransport t(bin_);
  NodeExec exec(t, variant_, cluster_);
  ASSERT_TRUE(launch_containers(exec, {"video"}));
  EXPECT_EQ(exec.docker("n1"), "docker");
  EXPECT_EQ(exec.docker("n2"), "sudo -n docker");
  EXPECT_TRUE(exists("n1", "running_aorta_c"));
  EXPECT_TRUE(exists("n2", "running_aorta_c"));
  auto in = exec.in_containers("echo inside", std::chrono::seconds(10));
  ASSERT_TRUE(cluster::all_succeeded(in)) << cluster::describe_failures(in);
  std::string l = log();
  EXPECT_NE(l.find("n2 sudo docker run -d --name aorta_c"), std::string::npos) << l;
  EXPECT_NE(l.find("n2 sudo docker exec aorta_c bash -c echo inside"), std::string::npos) << l;
  EXPECT_NE(l.find("n1 docker exec aorta_c"), std::string::npos) << l;
  // Probed once per run.
  ASSERT_TRUE(verify_containers(exec));
  size_t probes = 0;
  for (size_t at = 0; (at = l.find("n1 docker ps", at)) != std::string::npos; ++at) ++probes;
  EXPECT_EQ(probes, 1u) << l;
}

TEST_F(Containers, NodeWithoutDockerOrSudoIsNamed) {
  touch("n2", "deny");
  touch("n2", "nosudo");
  PerHostTransport t(bin_);
  NodeExec exec(t, variant_, cluster_);
  Status s = launch_containers(exec, {"video"});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("docker is not usable on [n2] as tester, nor with sudo -n"), std::string::npos)
      << s.error().message;
  EXPECT_FALSE(exists("n1", "running_aorta_c"));
}

TEST_F(Containers, PullOnlyWhereMissingAndItsFailureNamesNodeAndImage) {
  touch("n1", "image");
  touch("n2", "pull_fails");
  PerHostTransport t(bin_);
  NodeExec exec(t, variant_, cluster_);
  Status s = launch_containers(exec, {"video"});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("Aorta container setup failed for image 'reg/img:1': docker pull failed on [n2]"),
            std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("registry"), std::string::npos) << s.error().message;
  EXPECT_EQ(log().find("n1 docker pull"), std::string::npos) << log();
  EXPECT_NE(log().find("n2 docker pull reg/img:1"), std::string::npos) << log();
  EXPECT_EQ(log().find("docker run"), std::string::npos) << log();
}

// Issue 43 (7): with CVS's registry object, a node that must pull logs in first, with
// its own docker command (sudo -n where docker needs it), the password going from the
// file on the node to docker's stdin: never in an argument or the environment.
TEST_F(Containers, RegistryLoginBeforeThePullOnlyWhereItIsNeededPasswordOnStdin) {
  const std::string secret = "s3cr3t-Pw-91";
  dir_.write("state/password", secret);
  touch("", "private");
  touch("n1", "image");
  touch("n2", "deny");
  variant_.container.args.registry = {"robot", (state_ / "password").string(), "reg.example:5000"};
  PerHostTransport t(bin_);
  NodeExec exec(t, variant_, cluster_);
  ASSERT_TRUE(launch_containers(exec, {"video"}));
  std::string l = log();
  EXPECT_EQ(l.find("n1 docker login"), std::string::npos) << l;
  size_t login = l.find("n2 sudo docker login --username robot --password-stdin reg.example:5000\n");
  ASSERT_NE(login, std::string::npos) << l;
  EXPECT_LT(login, l.find("n2 sudo docker pull reg/img:1")) << l;
  EXPECT_EQ(read(state_ / "n2" / "login_stdin"), secret);
  EXPECT_EQ(l.find(secret), std::string::npos) << "the password was an argument";
  EXPECT_EQ(read(state_ / "n2" / "login_env").find(secret), std::string::npos) << "the password was in the environment";
  EXPECT_TRUE(exists("n2", "running_aorta_c"));
}

// A failed login names the nodes, server, user and file, says what to do, and neither
// pulls nor starts anything; a file the SSH user cannot read is said as such.
TEST_F(Containers, FailedRegistryLoginNamesNodeServerUserAndFile) {
  dir_.write("state/password", "right");
  dir_.write("wrong", "wrong");
  touch("n1", "image");
  variant_.container.args.registry = {"robot", (dir_.path() / "wrong").string(), "reg.example:5000"};
  PerHostTransport t(bin_);
  NodeExec exec(t, variant_, cluster_);
  Status s = launch_containers(exec, {"video"});
  ASSERT_FALSE(s);
  const std::string& m = s.error().message;
  EXPECT_NE(m.find("Aorta container setup failed for image 'reg/img:1': docker login to reg.example:5000 as robot "
                   "failed on [n2] (check that password_file " + (dir_.path() / "wrong").string() + " exists on those "
                   "nodes, is readable by the SSH user and holds that user's password or token, and that the nodes "
                   "reach the registry): "), std::string::npos) << m;
  EXPECT_NE(m.find("unauthorized: incorrect username or password"), std::string::npos) << m;
  EXPECT_EQ(m.find(kLoginFailedMarker), std::string::npos) << m;
  EXPECT_EQ(log().find("pull"), std::string::npos) << log();
  EXPECT_EQ(log().find(" run"), std::string::npos) << log();

  variant_.container.args.registry = {"robot", (dir_.path() / "absent").string(), ""};
  NodeExec again(t, variant_, cluster_);
  s = launch_containers(again, {"video"});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("docker login to the default registry (Docker Hub) as robot failed on [n2]"),
            std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("cannot read password_file " + (dir_.path() / "absent").string() + " on this node"),
            std::string::npos) << s.error().message;
}

TEST_F(Containers, PersistentAttachesStartsOrNamesTheNodesLackingIt) {
  variant_.container.lifetime = "persistent";
  touch("n1", "image");
  touch("n2", "image");
  PerHostTransport t(bin_);
  {  // running everywhere: attach, nothing removed or started, kept at teardown
    touch("n1", "running_aorta_c");
    touch("n2", "running_aorta_c");
    NodeExec exec(t, variant_, cluster_);
    ASSERT_TRUE(launch_containers(exec, {"video"}));
    ASSERT_TRUE(remove_containers(exec));
    EXPECT_EQ(log().find(" rm"), std::string::npos) << log();
    EXPECT_EQ(log().find(" run"), std::string::npos) << log();
    EXPECT_TRUE(exists("n1", "running_aorta_c"));
  }
  {  // running on some: an error naming the others, nothing started or removed
    fs::remove(state_ / "n2" / "running_aorta_c");
    NodeExec exec(t, variant_, cluster_);
    Status s = launch_containers(exec, {"video"});
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().message.find("container aorta_c (lifetime persistent) runs on [n1] but not on [n2]: start it"),
              std::string::npos) << s.error().message;
    EXPECT_NE(s.error().message.find("lifetime per_run"), std::string::npos);
    EXPECT_EQ(log().find(" run"), std::string::npos) << log();
    EXPECT_TRUE(exists("n1", "running_aorta_c"));
  }
  {  // running nowhere: started, and kept at teardown
    fs::remove(state_ / "n1" / "running_aorta_c");
    NodeExec exec(t, variant_, cluster_);
    ASSERT_TRUE(launch_containers(exec, {"video"}));
    ASSERT_TRUE(remove_containers(exec));
    EXPECT_TRUE(exists("n1", "running_aorta_c"));
    EXPECT_TRUE(exists("n2", "running_aorta_c"));
    EXPECT_EQ(log().find("rm -f"), std::string::npos) << log();
  }
}

TEST_F(Containers, NoLaunchOnlyVerifies) {
  variant_.container.lifetime = "no_launch";
  PerHostTransport t(bin_);
  NodeExec exec(t, variant_, cluster_);
  ASSERT_TRUE(launch_containers(exec, {"video"}));
  Status s = verify_containers(exec);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("not running on every node (not on: n1, n2)"), std::string::npos);
  EXPECT_EQ(log().find(" run"), std::string::npos) << log();
  EXPECT_EQ(log().find(" rm"), std::string::npos) << log();
}

// Teardown records the nodes whose docker rm failed; the second teardown (the
// fixture's retry) removes only on those, once.
TEST_F(Containers, FailedRemovalIsRecordedAndRetriedOnce) {
  touch("n1", "image");
  touch("n2", "image");
  PerHostTransport t(bin_);
  NodeExec exec(t, variant_, cluster_);
  ASSERT_TRUE(launch_containers(exec, {"video"}));
  RunState state;
  state.container_started = true;
  stages::StageContext ctx{exec, state, [](const std::string&) {}};
  touch("n2", "rm_fails_once");
  StageResult first = stages::kTeardown.body(ctx);
  ASSERT_EQ(first.failures.size(), 1u);
  EXPECT_NE(first.failures[0].find("Aorta container teardown failed"), std::string::npos) << first.failures[0];
  EXPECT_EQ(state.container_removal_failed, std::vector<std::string>{"n2"});
  EXPECT_TRUE(exists("n2", "running_aorta_c"));
  fs::remove(state_ / "log");
  StageResult retry = stages::kTeardown.body(ctx);
  EXPECT_TRUE(retry.failures.empty()) << retry.failures[0];
  EXPECT_FALSE(exists("n2", "running_aorta_c"));
  EXPECT_TRUE(state.container_removal_failed.empty());
  EXPECT_EQ(log(), "n2 docker rm -f aorta_c\n");
}

}  // namespace
}  // namespace aorta::job
