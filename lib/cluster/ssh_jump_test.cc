// Nodes reached through a jump host: a bastion sshd on 127.0.0.1 and a target
// sshd on 127.0.0.2 and 127.0.0.3 (two "nodes"), each with its own host key.
#include "cluster/ssh_jump.h"

#include <gtest/gtest.h>

#include "cluster/ssh_transport.h"
#include "common/shell_quote.h"
#include "tests/ssh_transport_fixture.h"
#include "tests/sshd_server.h"

namespace aorta::cluster {
namespace {
using std::chrono::seconds;
using aorta::testing::SshdServer;
using aorta::testing::SshdSetup;
using aorta::testing::TempDir;

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class SshJumpTest : public ::testing::Test {
 protected:
  SshJumpTest()
      // DEBUG1 logs each forwarding request: the test sees the tunnels were used.
      : bastion_(SshdSetup{{"127.0.0.1"}, "LogLevel DEBUG1\nAllowTcpForwarding yes"}),
        target_(SshdSetup{{"127.0.0.2", "127.0.0.3"}, ""}) {
    ::unsetenv("SSH_AUTH_SOCK");
    // The bastion accepts the nodes' key too (the usual one-key setup).
    bastion_.authorize(target_.client_key().string() + ".pub");
  }
  SshOptions options() const {
    SshOptions o = root_options(target_);
    o.jump = SshJumpOptions{"127.0.0.1", bastion_.port(), "root", target_.client_key(), bastion_.known_hosts(), ""};
    return o;
  }
  std::unique_ptr<SshTransport> transport(const SshOptions& o) { return created_transport(o); }
  // A known_hosts file giving `address`:port some other key.
  std::filesystem::path wrong_known_hosts(const std::string& address, int port) {
    aorta::testing::run_or_throw("ssh-keygen -q -t ed25519 -N '' -f " + (dir_.path() / "other").string());
    std::string other = aorta::testing::slurp(dir_.path() / "other.pub");
    return dir_.write("wrong_known_hosts",
                      "[" + address + "]:" + std::to_string(port) + " " + other.substr(0, other.rfind(' ')) + "\n");
  }
  TempDir dir_;
  SshdServer bastion_;
  SshdServer target_;
};

TEST_F(SshJumpTest, CommandsOnTwoNodesGoThroughOneBastionSession) {
  auto t = transport(options());
  // Each node waits for the other's flag: they run at the same time, through the same bastion.
  auto meet = [&](const std::string& mine, const std::string& theirs, const std::string& word) {
    return "touch " + shell_quote((dir_.path() / mine).string()) + "; for i in $(seq 100); do test -e " +
           shell_quote((dir_.path() / theirs).string()) + " && { echo " + word + "; exit 0; }; sleep 0.1; done; exit 1";
  };
  auto results = t->run_batch({"127.0.0.2", "127.0.0.3"}, {meet("a", "b", "a"), meet("b", "a", "b")}, seconds(30));
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(results[0]->output, "a\n");
  EXPECT_EQ(results[1]->output, "b\n");
  // 2 MiB back through the tunnel: many channel windows on both hops.
  auto big = t->run("127.0.0.2", "head -c 2097152 /dev/zero | tr '\\0' x", seconds(20));
  ASSERT_TRUE(big.ok()) << big.error().describe();
  EXPECT_EQ(big->output.size(), 2097152u);
  EXPECT_EQ(big->output.find_first_not_of('x'), std::string::npos);
  std::string log = bastion_.log();
  EXPECT_EQ(count(log, "Accepted publickey"), 1u) << log;
  for (const char* node : {"127.0.0.2", "127.0.0.3"})
    EXPECT_NE(log.find(std::string("target ") + node + " port " + std::to_string(target_.port())), std::string::npos)
        << log;
}

TEST_F(SshJumpTest, SftpDownloadThroughTheJumpIsByteExact) {
  auto t = transport(options());
  auto remote = dir_.path() / "remote.bin";
  aorta::testing::run_or_throw("head -c 3000001 /dev/urandom > " + remote.string());
  auto got = t->download("127.0.0.2", remote.string(), dir_.path() / "local.bin", kNoByteLimit);
  ASSERT_TRUE(got.ok()) << got.error().describe();
  EXPECT_EQ(aorta::testing::slurp(dir_.path() / "local.bin"), aorta::testing::slurp(remote));
  expect_serves_commands(*t, "127.0.0.2");
  EXPECT_NE(bastion_.log().find("target 127.0.0.2 port " + std::to_string(target_.port())), std::string::npos);
}

TEST_F(SshJumpTest, WrongBastionHostKeyFailsNamingTheBastion) {
  auto o = options();
  o.jump->known_hosts = wrong_known_hosts("127.0.0.1", bastion_.port());
  auto r = transport(o)->run("127.0.0.2", "true", seconds(10));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().context, "127.0.0.2");
  EXPECT_EQ(r.error().message.rfind("jump host 127.0.0.1:" + std::to_string(bastion_.port()) + ": HOST KEY MISMATCH", 0),
            0u)
      << r.error().message;
  EXPECT_EQ(count(target_.log(), "Connection from"), 1u);  // the test server's readiness probe only
}

TEST_F(SshJumpTest, WrongTargetHostKeyFailsNamingTheNode) {
  auto o = options();
  o.known_hosts = wrong_known_hosts("127.0.0.2", target_.port());
  auto r = transport(o)->run("127.0.0.2", "true", seconds(10));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().context, "127.0.0.2");
  EXPECT_EQ(r.error().message.rfind("HOST KEY MISMATCH", 0), 0u) << r.error().message;
  // The bastion's own key was fine: the tunnel was opened and the node's key refused.
  EXPECT_NE(bastion_.log().find("target 127.0.0.2 port " + std::to_string(target_.port())), std::string::npos);
}

TEST_F(SshJumpTest, LostBastionFailsNamingItThenReconnects) {
  auto t = transport(options());
  ASSERT_TRUE(t->run("127.0.0.2", "true", seconds(10)).ok());
  bastion_.drop_connections();
  auto lost = t->run("127.0.0.2", "true", seconds(10));
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.error().context, "127.0.0.2");
  EXPECT_NE(lost.error().message.find("(through jump host 127.0.0.1:" + std::to_string(bastion_.port()) + ")"),
            std::string::npos)
      << lost.error().message;
  // As with a direct connection that dropped: the next command connects afresh,
  // a new bastion session first.
  auto again = t->run("127.0.0.2", "echo back", seconds(10));
  ASSERT_TRUE(again.ok()) << again.error().describe();
  EXPECT_EQ(again->output, "back\n");
  EXPECT_EQ(count(bastion_.log(), "Accepted publickey"), 2u);
}

TEST(SshJumpForwarding, BastionRefusingForwardingSaysSo) {
  SshdServer bastion(SshdSetup{{"127.0.0.1"}, "AllowTcpForwarding no"});
  SshdServer target(SshdSetup{{"127.0.0.2"}, ""});
  bastion.authorize(target.client_key().string() + ".pub");
  ::unsetenv("SSH_AUTH_SOCK");
  SshOptions o;
  o.user = "root";
  o.private_key = target.client_key();
  o.port = target.port();
  o.known_hosts = target.known_hosts();
  o.connect_timeout = seconds(10);
  o.jump = SshJumpOptions{"127.0.0.1", bastion.port(), "root", target.client_key(), bastion.known_hosts(), ""};
  auto t = SshTransport::create(o);
  ASSERT_TRUE(t.ok());
  auto r = (*t)->run("127.0.0.2", "true", seconds(10));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("jump host 127.0.0.1:" + std::to_string(bastion.port()) +
                                   " cannot open a tunnel to 127.0.0.2:" + std::to_string(target.port())),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("AllowTcpForwarding"), std::string::npos);
}

}  // namespace
}  // namespace aorta::cluster
