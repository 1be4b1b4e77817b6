#include "config/cluster.h"

#include <stdlib.h>

#include <fstream>

#include <gtest/gtest.h>

#include "test_paths.h"  // AORTA_SOURCE_DIR
#include "tests/temp_dir.h"

namespace aorta::config {
namespace {

std::string all(const ClusterLoad& c) {
  std::string s;
  for (const auto& e : c.errors) s += e.describe() + "\n";
  return s;
}

TEST(ClusterFile, NodesKeepOrderAndUserIdResolves) {
  aorta::testing::TempDir dir;
  auto f = dir.write("c.json", R"({"username": "{user-id}", "priv_key_file": "/home/{user-id}/.ssh/id_ed25519",
    "node_dict": {"node-b": {"vpc_ip": "10.0.0.2"}, "node-a": {"vpc_ip": "10.0.0.1", "bmc_ip": "x"}}})");
  auto c = load_cluster(f, "alice");
  ASSERT_TRUE(c.cluster) << all(c);
  EXPECT_EQ(c.cluster->username, "alice");
  EXPECT_EQ(c.cluster->priv_key_file, "/home/alice/.ssh/id_ed25519");
  ASSERT_EQ(c.cluster->nodes.size(), 2u);
  EXPECT_EQ(c.cluster->head().name, "node-b");
  EXPECT_EQ(c.cluster->nodes[1].vpc_ip, "10.0.0.1");
}

// Issue 29, 6: the password and the key passphrase the run reads from the environment
// are secrets the run registers, whatever form a node's output echoes them in.
TEST(ClusterFile, ReturnsTheSecretsItHoldsAndThePassphraseItReads) {
  aorta::testing::TempDir dir;
  ::setenv("AORTA_TEST_KEY_PASSPHRASE", "p4ss-phrase", 1);
  auto f = dir.write("c.json", R"({"username": "u", "password": "hunter2x", "priv_key_file": "/k",
    "ssh": {"key_passphrase_env": "AORTA_TEST_KEY_PASSPHRASE"}, "node_dict": {"n1": {"vpc_ip": "10.0.0.1"}}})");
  auto c = load_cluster(f, "alice");
  ::unsetenv("AORTA_TEST_KEY_PASSPHRASE");
  ASSERT_TRUE(c.cluster) << all(c);
  EXPECT_EQ(c.secrets, (std::vector<std::string>{"hunter2x", "p4ss-phrase"}));
}

TEST(ClusterFile, RulesNameTheirKeys) {
  aorta::testing::TempDir dir;
  auto c = load_cluster(dir.write("c.json", R"({"username": "<changeme>", "node_dict": {}})"), "alice");
  std::string e = all(c);
  EXPECT_FALSE(c.cluster);
  EXPECT_NE(e.find("username: Unresolved configuration placeholder"), std::string::npos) << e;
  EXPECT_NE(e.find("Authentication required: provide either 'priv_key_file' or 'password'"), std::string::npos) << e;
  EXPECT_NE(e.find("node_dict: No nodes configured in 'node_dict' - at least one node is required"), std::string::npos) << e;
  auto d = load_cluster(dir.write("d.json", R"({"username": "u", "password": "p", "node_dict": {"n1": {}}})"), "alice");
  EXPECT_NE(all(d).find("node_dict.n1.vpc_ip: Field required"), std::string::npos) << all(d);
  auto missing = load_cluster(dir.path() / "nope.json", "alice");
  EXPECT_NE(all(missing).find("nope.json: cluster file cannot be read"), std::string::npos);
}

// Issue 29 (7): a node name or address with an escape sequence would drive the
// terminal on every progress line; it is refused, and shown escaped in the error.
TEST(ClusterFile, ControlCharactersInNodeNamesAreRefused) {
  aorta::testing::TempDir dir;
  auto c = load_cluster(dir.write("c.json", R"({"username": "u", "password": "p", "node_dict": {
      "n\u001b]0;owned\u0007": {"vpc_ip": "10.0.0.1"}, "n2": {"vpc_ip": "10.0.0.2\u001b[2J"}}})"),
                        "alice");
  std::string e = all(c);
  EXPECT_FALSE(c.cluster);
  EXPECT_NE(e.find("node_dict.n\\x1b]0;owned\\x07: a node name may not hold control characters"), std::string::npos) << e;
  EXPECT_NE(e.find("node_dict.n2.vpc_ip: may not hold control characters: 10.0.0.2\\x1b[2J"), std::string::npos) << e;
  EXPECT_EQ(e.find('\x1b'), std::string::npos) << e;
}

TEST(ClusterFile, SshBlockDefaultsAndChecks) {
  aorta::testing::TempDir dir;
  setenv("HOME", "/home/alice", 1);
  auto plain = load_cluster(dir.write("a.json", R"({"username": "u", "priv_key_file": "~/.ssh/id_ed25519",
    "node_dict": {"n1": {"vpc_ip": "10.0.0.1"}}})"), "alice");
  ASSERT_TRUE(plain.cluster) << all(plain);
  EXPECT_EQ(plain.cluster->priv_key_file, "/home/alice/.ssh/id_ed25519");
  EXPECT_EQ(plain.cluster->ssh.port, 22);
  EXPECT_EQ(plain.cluster->ssh.known_hosts, "/home/alice/.ssh/known_hosts");
  EXPECT_TRUE(plain.cluster->ssh.strict_host_key_checking);
  auto set = load_cluster(dir.write("b.json", R"({"username": "u", "priv_key_file": "/k",
    "ssh": {"port": 2222, "known_hosts": "/tc/known_hosts", "strict_host_key_checking": false},
    "node_dict": {"n1": {"vpc_ip": "10.0.0.1"}}})"), "alice");
  ASSERT_TRUE(set.cluster) << all(set);
  EXPECT_EQ(set.cluster->ssh.port, 2222);
  EXPECT_EQ(set.cluster->ssh.known_hosts, "/tc/known_hosts");
  EXPECT_FALSE(set.cluster->ssh.strict_host_key_checking);
  auto bad = load_cluster(dir.write("c.json", R"({"username": "u", "priv_key_file": "/k",
    "ssh": {"port": 70000, "strict": true}, "node_dict": {"n1": {"vpc_ip": "10.0.0.1"}}})"), "alice");
  EXPECT_NE(all(bad).find("ssh.port: must be between 1 and 65535"), std::string::npos) << all(bad);
  EXPECT_NE(all(bad).find("ssh.strict"), std::string::npos) << all(bad);
}

TEST(ClusterFile, LocalTransportNeedsNoCredentials) {
  aorta::testing::TempDir dir;
  auto c = load_cluster(dir.write("c.json", R"({"username": "u", "transport": "local", "node_dict": {"gpu0": {"vpc_ip": "127.0.0.1"}}})"), "a");
  ASSERT_TRUE(c.cluster) << all(c);
  EXPECT_EQ(c.cluster->transport, TransportKind::kLocal);
  Cluster local = local_cluster("bob");
  EXPECT_EQ(local.nodes.size(), 1u);
  EXPECT_EQ(local.transport, TransportKind::kLocal);
}

// <changeme> in any letter case, in any string of the file, names its key; a
// password is not echoed.
TEST(ClusterFile, ChangemeAnyCaseAnyString) {
  aorta::testing::TempDir dir;
  auto c = load_cluster(dir.write("c.json", R"({"username": "<ChangeMe>", "password": "x<CHANGEME>y",
    "node_dict": {"n1": {"vpc_ip": "<changeMe>"}}, "racks": ["ok", "<changeme>"],
    "head_node_dict": {"password": "s3cret<changeme>"}})"), "alice");
  std::string e = all(c);
  EXPECT_FALSE(c.cluster);
  EXPECT_NE(e.find("c.json: username: Unresolved configuration placeholder: '<ChangeMe>'"), std::string::npos) << e;
  EXPECT_NE(e.find("c.json: node_dict.n1.vpc_ip: Unresolved configuration placeholder: '<changeMe>'"),
            std::string::npos) << e;
  EXPECT_NE(e.find("c.json: racks[1]: Unresolved configuration placeholder"), std::string::npos) << e;
  EXPECT_NE(e.find("c.json: password: Unresolved configuration placeholder"), std::string::npos) << e;
  EXPECT_EQ(e.find("x<CHANGEME>y"), std::string::npos) << e;
  // Nested too: the last part of the key decides.
  EXPECT_NE(e.find("c.json: head_node_dict.password: Unresolved configuration placeholder"), std::string::npos) << e;
  EXPECT_EQ(e.find("s3cret"), std::string::npos) << e;
}

// Unknown top-level keys are warnings naming the key and the file; the keys of
// CVS's shared cluster schema and _comment are not.
TEST(ClusterFile, UnknownTopLevelKeysWarn) {
  aorta::testing::TempDir dir;
  auto c = load_cluster(dir.write("c.json", R"({"username": "u", "password": "p", "_comment": "x",
    "orchestrator": "container", "racks": {}, "env_vars": {}, "node_dir_name": "root", "nodes_dict": {},
    "node_dict": {"n1": {"vpc_ip": "10.0.0.1"}}})"), "alice");
  ASSERT_TRUE(c.cluster) << all(c);
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_EQ(c.warnings[0].describe(), (dir.path() / "c.json").string() + ": nodes_dict: unknown cluster file key, ignored");
}

// The shipped example (`config copy cluster_example.json`): refused while a <changeme>
// is left, naming each; with names and addresses filled in, a cluster of two nodes.
TEST(ClusterFile, TheShippedExampleLoadsOnceItsChangemesAreFilledIn) {
  const std::filesystem::path example = std::filesystem::path(AORTA_SOURCE_DIR) / "configs" / "cluster_example.json";
  auto untouched = load_cluster(example, "alice");
  EXPECT_FALSE(untouched.cluster);
  EXPECT_NE(all(untouched).find("node_dict.<changeme>.vpc_ip"), std::string::npos) << all(untouched);
  std::ifstream in(example);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {R"("<changeme>": {"vpc_ip": "<changeme>"})", R"("gpu-01": {"vpc_ip": "10.0.0.1"})"},
           {R"("<changeme>-2": {"vpc_ip": "<changeme>"})", R"("gpu-02": {"vpc_ip": "10.0.0.2"})"}}) {
    ASSERT_NE(text.find(from), std::string::npos) << from;
    text.replace(text.find(from), from.size(), to);
  }
  aorta::testing::TempDir dir;
  auto filled = load_cluster(dir.write("cluster.json", text), "alice");
  ASSERT_TRUE(filled.cluster) << all(filled);
  EXPECT_EQ(filled.cluster->username, "alice");
  ASSERT_EQ(filled.cluster->nodes.size(), 2u);
  EXPECT_EQ(filled.cluster->head().name, "gpu-01");
  EXPECT_TRUE(filled.cluster->ssh.strict_host_key_checking);
}

}  // namespace
}  // namespace aorta::config
