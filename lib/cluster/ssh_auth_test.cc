// The SSH transport's host key check and authentication against a real sshd: unknown
// and changed host keys, wrong and unsafe keys, the agent, encrypted keys.
#include "cluster/ssh_transport.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "cluster/ssh_key.h"
#include "cluster/ssh_passphrase.h"
#include "tests/ssh_transport_fixture.h"

namespace aorta::cluster {
namespace {
using std::chrono::seconds;
using aorta::testing::TempDir;

TEST_F(SshTransportTest, UnknownHostKeyIsRefusedByDefault) {
  TempDir dir;
  auto o = options();
  o.known_hosts = dir.write("known_hosts", "");
  auto t = transport(o);
  auto r = t->run("127.0.0.1", "true", seconds(10));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().context, "127.0.0.1");
  EXPECT_NE(r.error().message.find("host key is not in " + o.known_hosts.string()), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("strict_host_key_checking"), std::string::npos);
  o.check_host_key = false;
  auto opted_out = transport(o)->run("127.0.0.1", "true", seconds(10));
  EXPECT_TRUE(opted_out.ok());
}

TEST_F(SshTransportTest, ChangedHostKeyIsAMismatch) {
  TempDir dir;
  aorta::testing::run_or_throw("ssh-keygen -q -t ed25519 -N '' -f " + (dir.path() / "other").string());
  std::string other = aorta::testing::slurp(dir.path() / "other.pub");
  auto o = options();
  o.known_hosts = dir.write("known_hosts", "[127.0.0.1]:" + std::to_string(o.port) + " " +
                                               other.substr(0, other.rfind(' ')) + "\n");
  auto r = transport(o)->run("127.0.0.1", "true", seconds(10));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("HOST KEY MISMATCH"), std::string::npos) << r.error().message;
}

TEST_F(SshTransportTest, WrongKeyFailsAuthenticationNamingTheKey) {
  TempDir dir;
  auto key = dir.path() / "stranger";
  aorta::testing::run_or_throw("ssh-keygen -q -t ed25519 -N '' -f " + key.string());
  auto o = options();
  o.private_key = key;
  auto r = transport(o)->run("127.0.0.1", "true", seconds(10));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("authentication as root with key " + key.string() + " failed"), std::string::npos)
      << r.error().message;
}

TEST_F(SshTransportTest, RsaKeyFailureExplainsLibssh2Limit) {
  TempDir dir;
  auto key = dir.path() / "id_rsa";
  aorta::testing::run_or_throw("ssh-keygen -q -t rsa -b 2048 -N '' -f " + key.string());
  sshd_.authorize(key.string() + ".pub");  // authorized, yet refused: ssh-rsa (SHA-1) signatures
  EXPECT_EQ(private_key_type(key), "ssh-rsa");
  auto o = options();
  o.private_key = key;
  auto r = transport(o)->run("127.0.0.1", "true", seconds(10));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("is an RSA key: libssh2 1.10 signs only with ssh-rsa"), std::string::npos)
      << r.error().message;
}

TEST_F(SshTransportTest, KeyReadableByOthersIsRefusedBeforeConnecting) {
  auto o = options();
  ::chmod(o.private_key.c_str(), 0644);
  auto t = SshTransport::create(o);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("has permissions 0644"), std::string::npos) << t.error().message;
  EXPECT_NE(t.error().message.find("chmod 600 " + o.private_key.string()), std::string::npos);
  EXPECT_EQ(private_key_type(o.private_key), "ssh-ed25519");
}

TEST_F(SshTransportTest, NothingListeningSaysSoAndNamesTheNode) {
  auto o = options();
  o.port = aorta::testing::free_port();
  auto r = transport(o)->run("127.0.0.2", "true", seconds(10));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().context, "127.0.0.2");
  EXPECT_NE(r.error().message.find("is sshd running on the node?"), std::string::npos) << r.error().message;
}

// A real ssh-agent on a socket of its own, stopped with the test.
class SshAgent {
 public:
  SshAgent() : socket_(dir_.path() / "agent.sock") {
    agent_ = boost::process::child("/usr/bin/ssh-agent", "-D", "-a", socket_.string(),
                                   boost::process::std_out > boost::process::null);
    for (int i = 0; i < 100 && !std::filesystem::exists(socket_); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!std::filesystem::exists(socket_)) throw std::runtime_error("ssh-agent did not start");
  }
  ~SshAgent() {
    std::error_code ec;
    agent_.terminate(ec);
  }
  // ssh-add of a fresh ed25519 key; returns the public key file. The private key is
  // deleted: only the agent holds it.
  std::filesystem::path add_new_key() const {
    auto key = dir_.path() / "agent_key";
    aorta::testing::run_or_throw("ssh-keygen -q -t ed25519 -N '' -f " + key.string());
    aorta::testing::run_or_throw("SSH_AUTH_SOCK=" + socket_.string() + " ssh-add -q " + key.string() + " 2>/dev/null");
    std::filesystem::remove(key);
    return key.string() + ".pub";
  }
  const std::filesystem::path& socket() const { return socket_; }

 private:
  TempDir dir_;
  std::filesystem::path socket_;
  boost::process::child agent_;
};

TEST_F(SshTransportTest, AgentFromSshAuthSockLogsInWithoutAKeyFile) {
  SshAgent agent;
  sshd_.authorize(agent.add_new_key());
  auto o = options();
  o.private_key.clear();
  ::setenv("SSH_AUTH_SOCK", agent.socket().c_str(), 1);
  auto r = transport(o)->run("127.0.0.1", "echo via-agent", seconds(10));
  ::unsetenv("SSH_AUTH_SOCK");
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->output, "via-agent\n");
  // The socket named in the cluster file works the same without the variable.
  o.agent_socket = agent.socket();
  auto named = transport(o)->run("127.0.0.2", "echo named", seconds(10));
  ASSERT_TRUE(named.ok()) << named.error().describe();
  EXPECT_EQ(named->output, "named\n");
}

TEST_F(SshTransportTest, KeyFileFirstThenAgentAsOpenSsh) {
  // The key file is not authorized; the agent's key is: the login falls through to it.
  TempDir dir;
  auto stranger = dir.path() / "stranger";
  aorta::testing::run_or_throw("ssh-keygen -q -t ed25519 -N '' -f " + stranger.string());
  SshAgent agent;
  sshd_.authorize(agent.add_new_key());
  auto o = options();
  o.private_key = stranger;
  o.agent_socket = agent.socket();
  auto r = transport(o)->run("127.0.0.1", "echo fell-through", seconds(10));
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->output, "fell-through\n");
  // An agent without the authorized key: the error names both things tried.
  SshAgent empty;
  o.agent_socket = empty.socket();
  auto refused = transport(o)->run("127.0.0.1", "true", seconds(10));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("with key " + stranger.string() + ", ssh-agent at " +
                                         empty.socket().string() + " (0 keys) failed"),
            std::string::npos)
      << refused.error().message;
}

class EncryptedKeyTest : public SshTransportTest {
 protected:
  EncryptedKeyTest() {
    aorta::testing::run_or_throw("ssh-keygen -q -t ed25519 -N 'correct horse' -f " + key_.string());
    sshd_.authorize(key_.string() + ".pub");
    ::unsetenv(kVariable);
  }
  ~EncryptedKeyTest() override { ::unsetenv(kVariable); }
  SshOptions encrypted_options() const {
    auto o = options();
    o.private_key = key_;
    o.key_passphrase_env = kVariable;
    o.ask_passphrase = false;  // the test's stdin may be a terminal
    return o;
  }
  static constexpr const char* kVariable = "AORTA_TEST_KEY_PASSPHRASE";
  TempDir dir_;
  std::filesystem::path key_ = dir_.path() / "id_encrypted";
};

TEST_F(EncryptedKeyTest, PassphraseFromTheNamedVariableLogsIn) {
  EXPECT_TRUE(private_key_encrypted(key_));
  EXPECT_FALSE(private_key_encrypted(sshd_.client_key()));
  ::setenv(kVariable, "correct horse", 1);
  auto r = transport(encrypted_options())->run("127.0.0.1", "echo decrypted", seconds(10));
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->output, "decrypted\n");
  EXPECT_NE(sshd_.log().find("Connection from"), std::string::npos);  // what the test below looks for
}

TEST_F(EncryptedKeyTest, WrongPassphraseSaysSo) {
  ::setenv(kVariable, "battery staple", 1);
  auto r = transport(encrypted_options())->run("127.0.0.1", "true", seconds(10));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "wrong passphrase for private key " + key_.string() + " (from the environment variable " + kVariable + ")");
  EXPECT_EQ(r.error().message.find("battery"), std::string::npos);
}

TEST_F(EncryptedKeyTest, MissingPassphraseFailsBeforeAnyNodeIsContacted) {
  auto t = SshTransport::create(encrypted_options());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("private key " + key_.string() + " is encrypted and the environment variable " +
                                   kVariable + " (named by"),
            std::string::npos)
      << t.error().message;
  auto o = encrypted_options();
  o.key_passphrase_env.clear();
  auto unnamed = SshTransport::create(o);
  ASSERT_FALSE(unnamed.ok());
  EXPECT_NE(unnamed.error().message.find("is encrypted and no passphrase is available: name an environment variable"),
            std::string::npos)
      << unnamed.error().message;
  // One connection in the log: the test server's own readiness probe.
  std::string log = sshd_.log();
  EXPECT_EQ(log.find("Connection from"), log.rfind("Connection from")) << log;
}

}  // namespace
}  // namespace aorta::cluster
