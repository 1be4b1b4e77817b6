// The SSH transport against a real OpenSSH sshd on loopback.
#include "cluster/ssh_transport.h"

#include <sys/stat.h>

#include <fstream>

#include <gtest/gtest.h>

#include "cluster/ssh_key.h"
#include "cluster/ssh_passphrase.h"
#include "common/shell_quote.h"
#include "tests/sshd_server.h"

namespace aorta::cluster {
namespace {
using std::chrono::seconds;
using aorta::testing::SshdServer;
using aorta::testing::TempDir;

class SshTransportTest : public ::testing::Test {
 protected:
  // The developer's own agent must not log the tests in (or change what they try).
  SshTransportTest() { ::unsetenv("SSH_AUTH_SOCK"); }
  SshOptions options() const {
    SshOptions o;
    o.user = "root";
    o.private_key = sshd_.client_key();
    o.port = sshd_.port();
    o.known_hosts = sshd_.known_hosts();
    o.connect_timeout = seconds(10);
    return o;
  }
  std::unique_ptr<SshTransport> transport(const SshOptions& o) {
    auto t = SshTransport::create(o);
    if (!t.ok()) ADD_FAILURE() << t.error().describe();
    return t.ok() ? std::move(*t) : nullptr;
  }
  SshdServer sshd_;
};

TEST_F(SshTransportTest, ExitCodeAndOutputOfBothStreams) {
  auto t = transport(options());
  auto r = t->run("127.0.0.1", "echo out; echo err >&2; exit 7", seconds(10));
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->exit_code, 7);
  EXPECT_EQ(r->output, "out\nerr\n");
}

// Issue 21: a command's stdout streamed into a file, stderr apart, both in order;
// 40 MiB is many of the stream's 32 MiB windows and 1 MiB reads.
TEST_F(SshTransportTest, StreamWritesStdoutToAFileAndKeepsStderrApart) {
  TempDir dir;
  auto t = transport(options());
  auto dest = dir.path() / "out.bin";
  auto r = t->stream("127.0.0.1", "echo warn >&2; head -c 41943040 /dev/zero | tr '\\0' y; exit 3", dest, seconds(30),
                     kNoByteLimit);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_EQ(r->errors, "warn\n");
  EXPECT_EQ(r->bytes, 41943040u);
  ASSERT_EQ(std::filesystem::file_size(dest), 41943040u);
  std::ifstream in(dest, std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all.find_first_not_of('y'), std::string::npos);
}

// A job that leaves a marker `mine` in dir and succeeds only once `theirs` is there
// too: two such jobs succeed only when they run at once.
std::string meet(const TempDir& dir, const std::string& mine, const std::string& theirs) {
  return "touch " + shell_quote((dir.path() / mine).string()) + "; for i in $(seq 100); do test -e " +
         shell_quote((dir.path() / theirs).string()) + " && { echo " + mine + "; exit 0; }; sleep 0.1; done; exit 1";
}

// Both nodes at once: each node's stream waits for the other's to have started.
TEST_F(SshTransportTest, CopyBatchRunsNodesAtOnceAndDownloadsPlainFiles) {
  TempDir dir;
  auto t = transport(options());
  auto plain = dir.write("plain.txt", "as it is\n");
  std::vector<CopyJob> jobs = {{"127.0.0.1", meet(dir, "a", "b"), "", dir.path() / "a.out"},
                               {"127.0.0.2", meet(dir, "b", "a"), "", dir.path() / "b.out"},
                               {"127.0.0.1", "", plain.string(), dir.path() / "plain.copy"}};
  std::vector<size_t> ended;
  auto results = t->copy_batch(jobs, 2, 1, seconds(30), [&](size_t i, const Result<StreamResult>&) {
    ended.push_back(i);
    return true;
  });
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(results[0]->exit_code, 0);
  EXPECT_EQ(results[1]->exit_code, 0);
  EXPECT_EQ(results[2]->bytes, 9u);
  std::ifstream a(dir.path() / "a.out"), copy(dir.path() / "plain.copy");
  std::string word, line;
  a >> word;
  std::getline(copy, line);
  EXPECT_EQ(word, "a");
  EXPECT_EQ(line, "as it is");
  EXPECT_EQ(ended.size(), 3u);
}

long open_files() {
  return std::distance(std::filesystem::directory_iterator("/proc/self/fd"), std::filesystem::directory_iterator{});
}

// Two streams of one node, each on its own connection: each waits for the other.
TEST_F(SshTransportTest, CopyBatchRunsStreamsOfOneNodeAtOnce) {
  TempDir dir;
  auto t = transport(options());
  auto plain = dir.write("plain.txt", "as it is\n");
  std::vector<CopyJob> jobs = {{"127.0.0.1", meet(dir, "a", "b"), "", dir.path() / "a.out"},
                               {"127.0.0.1", meet(dir, "b", "a"), "", dir.path() / "b.out"},
                               {"127.0.0.1", "", plain.string(), dir.path() / "plain.copy"}};
  ASSERT_TRUE(t->run("127.0.0.1", "true", seconds(10)).ok());  // the command connection, open
  const auto files_before = open_files();
  auto results = t->copy_batch(jobs, 1, 2, seconds(30), {});
  EXPECT_EQ(open_files(), files_before) << "the second stream's connection was left open";
  for (const auto& r : results) ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(results[0]->exit_code, 0) << "the two streams did not run at once";
  EXPECT_EQ(results[1]->exit_code, 0);
  EXPECT_EQ(results[2]->bytes, 9u);
  // The node's command connection still serves commands after the batch.
  auto r = t->run("127.0.0.1", "echo after", seconds(10));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->output, "after\n");
}

// A node that refuses further connections (here: its sshd stopped listening after
// the command connection was made) has every file copied over that one stream.
TEST_F(SshTransportTest, CopyBatchUsesTheStreamsANodeAllows) {
  TempDir dir;
  auto t = transport(options());
  auto plain = dir.write("plain.txt", "as it is\n");
  std::vector<CopyJob> jobs;
  for (int i = 0; i < 5; ++i)
    jobs.push_back({"127.0.0.1", "echo " + std::to_string(i), "", dir.path() / (std::to_string(i) + ".out")});
  jobs.push_back({"127.0.0.1", "", plain.string(), dir.path() / "plain.copy"});
  ASSERT_TRUE(t->run("127.0.0.1", "true", seconds(10)).ok());
  sshd_.stop_listening();
  ASSERT_FALSE(transport(options())->run("127.0.0.1", "true", seconds(10)).ok()) << "a new connection was still taken";
  const auto files_before = open_files();
  auto results = t->copy_batch(jobs, 1, 4, seconds(30), {});
  EXPECT_EQ(open_files(), files_before) << "a refused stream's connection was left open";
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(results[i].ok()) << i << ": " << results[i].error().describe();
    EXPECT_EQ(results[i]->exit_code, 0);
    EXPECT_EQ(aorta::testing::slurp(dir.path() / (std::to_string(i) + ".out")), std::to_string(i) + "\n");
  }
  ASSERT_TRUE(results[5].ok()) << results[5].error().describe();
  EXPECT_EQ(results[5]->bytes, 9u);
  auto r = t->run("127.0.0.1", "echo after", seconds(10));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->output, "after\n");
}

// After done() stops a node, its jobs never started end with the error saying so,
// while the one another stream is running ends on its own.
TEST_F(SshTransportTest, CopyBatchStopsANodesJobsNotYetStarted) {
  TempDir dir;
  auto t = transport(options());
  const std::string stopped = shell_quote((dir.path() / "stopped").string());
  // Job 0 fails at once; job 1 runs until done() has stopped the node.
  std::vector<CopyJob> jobs = {
      {"127.0.0.1", "exit 3", "", dir.path() / "0.out"},
      {"127.0.0.1", "for i in $(seq 100); do test -e " + stopped + " && exit 0; sleep 0.1; done; exit 1", "",
       dir.path() / "1.out"},
      {"127.0.0.1", "echo never", "", dir.path() / "2.out"},
      {"127.0.0.1", "echo never", "", dir.path() / "3.out"}};
  auto results = t->copy_batch(jobs, 1, 2, seconds(30), [&](size_t i, const Result<StreamResult>& r) {
    if (i != 0) return true;
    std::ofstream(dir.path() / "stopped") << "";
    return r.ok() && r->exit_code == 0;
  });
  ASSERT_TRUE(results[0].ok());
  EXPECT_EQ(results[0]->exit_code, 3);
  ASSERT_TRUE(results[1].ok()) << results[1].error().describe();
  EXPECT_EQ(results[1]->exit_code, 0);
  for (size_t i : {2u, 3u}) {
    ASSERT_FALSE(results[i].ok()) << i;
    EXPECT_EQ(results[i].error().message, "not copied: an earlier file of this node failed");
    EXPECT_FALSE(std::filesystem::exists(dir.path() / (std::to_string(i) + ".out"))) << i;
  }
}

TEST_F(SshTransportTest, LargeOutputArrivesWhole) {
  auto t = transport(options());
  // 2 MiB is many SSH windows' worth.
  auto r = t->run("127.0.0.1", "head -c 2097152 /dev/zero | tr '\\0' x", seconds(20));
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->output.size(), 2097152u);
  EXPECT_EQ(r->output.find_first_not_of('x'), std::string::npos);
}

TEST_F(SshTransportTest, OneConnectionPerNodeReusedAcrossCommands) {
  auto t = transport(options());
  // The command's parent is `timeout`, whose parent is the connection's sshd
  // session process: the same one for every command on one connection.
  const std::string session_pid = "cut -d' ' -f4 /proc/$PPID/stat";
  auto first = t->run("127.0.0.1", session_pid, seconds(10));
  auto second = t->run("127.0.0.1", session_pid, seconds(10));
  auto other_node = t->run("127.0.0.2", session_pid, seconds(10));
  ASSERT_TRUE(first.ok() && second.ok() && other_node.ok());
  EXPECT_EQ(first->output, second->output);
  EXPECT_NE(first->output, other_node->output);
}

TEST_F(SshTransportTest, BatchRunsNodesInParallelAndKeepsOrder) {
  TempDir dir;
  auto t = transport(options());
  // Each node's first command waits for the other's flag: run one after the other,
  // the first would give up after 10 s and exit 1.
  auto meet = [&](const std::string& mine, const std::string& theirs, const std::string& word) {
    return "touch " + shell_quote((dir.path() / mine).string()) + "; for i in $(seq 100); do test -e " +
           shell_quote((dir.path() / theirs).string()) + " && { echo " + word + "; exit 0; }; sleep 0.1; done; exit 1";
  };
  std::vector<std::string> hosts = {"127.0.0.1", "127.0.0.2", "127.0.0.1"};
  std::vector<std::string> commands = {meet("a", "b", "a"), meet("b", "a", "b"), "echo c"};
  auto results = t->run_batch(hosts, commands, seconds(30));
  ASSERT_EQ(results.size(), 3u);
  for (const auto& r : results) ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(results[0]->exit_code, 0);
  EXPECT_EQ(results[1]->exit_code, 0);
  EXPECT_EQ(results[0]->output, "a\n");
  EXPECT_EQ(results[1]->output, "b\n");
  EXPECT_EQ(results[2]->output, "c\n");
}

TEST_F(SshTransportTest, TimeoutEndsTheCommandsWholeProcessGroup) {
  TempDir dir;
  auto t = transport(options());
  auto survivor = dir.path() / "survivor";
  auto r = t->run("127.0.0.1", "(sleep 4; touch " + shell_quote(survivor.string()) + ") & sleep 60", seconds(1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kTimeout);
  EXPECT_EQ(r.error().context, "127.0.0.1");
  std::this_thread::sleep_for(std::chrono::milliseconds(4500));
  EXPECT_FALSE(std::filesystem::exists(survivor)) << "a child of the timed-out command survived";
  // The connection is still usable afterwards.
  auto after = t->run("127.0.0.1", "echo ok", seconds(10));
  ASSERT_TRUE(after.ok()) << after.error().describe();
  EXPECT_EQ(after->output, "ok\n");
}

TEST_F(SshTransportTest, HostileValuesStayData) {
  TempDir dir;
  auto t = transport(options());
  auto canary = dir.path() / "canary";
  std::string hostile = "a'b\"c $(touch " + canary.string() + ") `touch " + canary.string() + "`; touch " +
                        canary.string() + " \n|| & > x";
  auto r = t->run("127.0.0.1", "printf %s " + shell_quote(hostile), seconds(10));
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->output, hostile);
  auto bad_host = t->run("127.0.0.1;touch " + canary.string(), "true", seconds(10));
  EXPECT_FALSE(bad_host.ok());
  EXPECT_FALSE(std::filesystem::exists(canary));
}

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

TEST_F(SshTransportTest, SftpDownloadIsByteExact) {
  TempDir dir;
  auto t = transport(options());
  auto remote = dir.path() / "remote.bin";
  aorta::testing::run_or_throw("head -c 3000001 /dev/urandom > " + remote.string());
  ASSERT_TRUE(t->download("127.0.0.1", remote.string(), dir.path() / "local.bin", 3000001).ok());
  EXPECT_EQ(aorta::testing::slurp(dir.path() / "local.bin"), aorta::testing::slurp(remote));
  auto missing = t->download("127.0.0.1", (dir.path() / "nope").string(), dir.path() / "x", kNoByteLimit);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  // A command after SFTP on the same connection still works.
  EXPECT_TRUE(t->run("127.0.0.1", "true", seconds(10)).ok());
}

// Issue 29 (9, 8): a node that sends more than a copy may take is stopped as the
// bytes arrive (`yes` never ends on its own), and so is one that prints without end;
// the node's connection serves the next command.
TEST_F(SshTransportTest, CopiesAndOutputStopAtTheirLimits) {
  TempDir dir;
  auto t = transport(options());
  auto streamed = t->stream("127.0.0.1", "yes", dir.path() / "yes.out", seconds(60), 1 << 20);
  ASSERT_FALSE(streamed.ok());
  EXPECT_NE(streamed.error().message.find("more than the 1048576 bytes yes.out may take"), std::string::npos)
      << streamed.error().message;
  auto remote = dir.path() / "remote.bin";
  aorta::testing::run_or_throw("head -c 3000001 /dev/zero > " + remote.string());
  auto downloaded = t->download("127.0.0.1", remote.string(), dir.path() / "local.bin", 3000000);
  ASSERT_FALSE(downloaded.ok());
  EXPECT_NE(downloaded.error().message.find("more than the 3000000 bytes"), std::string::npos)
      << downloaded.error().message;
  auto printed = t->run("127.0.0.1", "yes", seconds(60));
  ASSERT_FALSE(printed.ok());
  EXPECT_NE(printed.error().message.find("printed more than 64 MiB"), std::string::npos) << printed.error().message;
  auto after = t->run("127.0.0.1", "echo after", seconds(10));
  ASSERT_TRUE(after.ok()) << after.error().describe();
  EXPECT_EQ(after->output, "after\n");
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

TEST(SshRemoteCommand, QuotesTheWholeCommandForTheRemoteShell) {
  EXPECT_EQ(ssh_remote_command("echo 'a b'", seconds(5)),
            "exec 2>&1; exec timeout -k 10 5 bash -c 'echo '\\''a b'\\'''");
}

}  // namespace
}  // namespace aorta::cluster
