// The cluster file's "ssh" block: login settings (passphrase variable, agent
// socket) and the jump host.
#include <gtest/gtest.h>

#include "config/cluster.h"
#include "tests/temp_dir.h"

namespace aorta::config {
namespace {

std::string all(const ClusterLoad& c) {
  std::string s;
  for (const auto& e : c.errors) s += e.describe() + "\n";
  return s;
}

ClusterLoad load_with_ssh(const aorta::testing::TempDir& dir, const std::string& ssh, const std::string& auth =
                              R"("priv_key_file": "~/.ssh/id_ed25519")") {
  return load_cluster(dir.write("c.json", R"({"username": "alice", )" + auth + R"(, "ssh": )" + ssh +
                                              R"(, "node_dict": {"n1": {"vpc_ip": "10.0.0.1"}}})"),
                      "alice");
}

class ClusterSshBlock : public ::testing::Test {
 protected:
  ClusterSshBlock() {
    ::setenv("HOME", "/home/alice", 1);
    ::unsetenv("SSH_AUTH_SOCK");
  }
  aorta::testing::TempDir dir_;
};

TEST_F(ClusterSshBlock, JumpHostFieldsDefaultToTheClustersOwn) {
  auto c = load_with_ssh(dir_, R"({"port": 2222, "known_hosts": "/tc/known_hosts",
                                   "jump_host": {"host": "bastion.example"}})");
  ASSERT_TRUE(c.cluster) << all(c);
  ASSERT_TRUE(c.cluster->ssh.jump_host);
  const JumpHost& j = *c.cluster->ssh.jump_host;
  EXPECT_EQ(j.host, "bastion.example");
  EXPECT_EQ(j.port, 2222);
  EXPECT_EQ(j.user, "alice");
  EXPECT_EQ(j.priv_key_file, "/home/alice/.ssh/id_ed25519");
  EXPECT_EQ(j.known_hosts, "/tc/known_hosts");
  auto none = load_with_ssh(dir_, R"({"port": 2222})");
  ASSERT_TRUE(none.cluster) << all(none);
  EXPECT_FALSE(none.cluster->ssh.jump_host);
}

TEST_F(ClusterSshBlock, JumpHostFieldsGiven) {
  auto c = load_with_ssh(dir_, R"({"key_passphrase_env": "AORTA_KEY_PASSPHRASE", "agent_socket": "~/agent.sock",
      "jump_host": {"host": "10.1.0.1", "port": 2200, "user": "hop", "priv_key_file": "~/.ssh/hop",
                    "known_hosts": "~/.ssh/hop_known"}})");
  ASSERT_TRUE(c.cluster) << all(c);
  EXPECT_EQ(c.cluster->ssh.key_passphrase_env, "AORTA_KEY_PASSPHRASE");
  EXPECT_EQ(c.cluster->ssh.agent_socket, "/home/alice/agent.sock");
  const JumpHost& j = *c.cluster->ssh.jump_host;
  EXPECT_EQ(j.port, 2200);
  EXPECT_EQ(j.user, "hop");
  EXPECT_EQ(j.priv_key_file, "/home/alice/.ssh/hop");
  EXPECT_EQ(j.known_hosts, "/home/alice/.ssh/hop_known");
  EXPECT_EQ(c.cluster->ssh.port, 22);  // the nodes' port is not the bastion's
}

TEST_F(ClusterSshBlock, BadValuesNameFileAndDottedKey) {
  auto c = load_with_ssh(dir_, R"({"key_passphrase_env": "my secret words", "agent_socket": 5,
      "jump_host": {"port": 0, "user": [], "proxy": "x"}})");
  std::string e = all(c);
  EXPECT_FALSE(c.cluster);
  std::string file = (dir_.path() / "c.json").string();
  for (const char* expected :
       {"ssh.key_passphrase_env: must name an environment variable (letters, digits, _), not hold the passphrase itself",
        "ssh.agent_socket", "ssh.jump_host.host: Field required", "ssh.jump_host.port: must be between 1 and 65535",
        "ssh.jump_host.user", "ssh.jump_host.proxy: Unknown key"})
    EXPECT_NE(e.find(file + ": " + std::string(expected)), std::string::npos) << expected << "\n" << e;
  EXPECT_EQ(e.find("my secret words"), std::string::npos) << "the value is not echoed back";
  auto not_object = load_with_ssh(dir_, R"({"jump_host": "bastion"})");
  EXPECT_NE(all(not_object).find("ssh.jump_host: must be an object with a host"), std::string::npos)
      << all(not_object);
  auto hostile = load_with_ssh(dir_, R"({"jump_host": {"host": "b; touch /tmp/x"}})");
  EXPECT_NE(all(hostile).find("ssh.jump_host.host: must be a host name or address"), std::string::npos)
      << all(hostile);
  auto unknown = load_with_ssh(dir_, R"({"jump": {"host": "b"}})");
  EXPECT_NE(all(unknown).find("ssh.jump: Unknown key"), std::string::npos) << all(unknown);
}

TEST_F(ClusterSshBlock, AnAgentIsEnoughAuthentication) {
  auto no_auth = load_with_ssh(dir_, "{}", R"("transport": "ssh")");
  EXPECT_FALSE(no_auth.cluster);
  EXPECT_NE(all(no_auth).find("Authentication required"), std::string::npos) << all(no_auth);
  auto named = load_with_ssh(dir_, R"({"agent_socket": "/run/agent.sock"})", R"("transport": "ssh")");
  EXPECT_TRUE(named.cluster) << all(named);
  ::setenv("SSH_AUTH_SOCK", "/tmp/agent.sock", 1);
  auto from_env = load_with_ssh(dir_, "{}", R"("transport": "ssh")");
  ::unsetenv("SSH_AUTH_SOCK");
  EXPECT_TRUE(from_env.cluster) << all(from_env);
}

}  // namespace
}  // namespace aorta::config
