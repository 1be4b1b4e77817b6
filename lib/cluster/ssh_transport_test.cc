// The SSH transport against a real OpenSSH sshd on loopback: commands, streams,
// SFTP downloads, their limits and time-outs, the connection reused.
#include "cluster/ssh_transport.h"

#include <gtest/gtest.h>

#include "common/shell_quote.h"
#include "tests/ssh_transport_fixture.h"

namespace aorta::cluster {
namespace {
using std::chrono::seconds;
using aorta::testing::TempDir;

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

// Issue 46: files placed on nodes over SFTP arrive byte for byte (more than one 1 MiB
// write, and an empty one), private (0600), on two nodes at once; a file the node cannot
// create is named, the node's later files are skipped, and another node's are not.
TEST_F(SshTransportTest, SftpUploadIsByteExactPrivateAndNamesWhatFailed) {
  TempDir dir;
  auto t = transport(options());
  const auto big = dir.path() / "big.bin", empty = dir.path() / "empty";
  aorta::testing::run_or_throw("head -c 3000001 /dev/urandom > " + big.string() + " && : > " + empty.string());
  const std::string a = (dir.path() / "a.bin").string(), b = (dir.path() / "b.bin").string();
  const std::string blocked = (dir.path() / "no-such-folder" / "x").string();
  auto done = t->upload_batch({{"127.0.0.1", big, a}, {"127.0.0.2", big, b}, {"127.0.0.2", empty, b + ".empty"},
                               {"127.0.0.1", big, blocked}, {"127.0.0.1", empty, a + ".after"}},
                              4, seconds(30));
  ASSERT_EQ(done.size(), 5u);
  for (size_t i : {0, 1, 2}) EXPECT_TRUE(done[i].ok()) << i << ": " << done[i].error().describe();
  EXPECT_EQ(aorta::testing::slurp(a), aorta::testing::slurp(big));
  EXPECT_EQ(aorta::testing::slurp(b), aorta::testing::slurp(big));
  EXPECT_EQ(std::filesystem::file_size(b + ".empty"), 0u);
  EXPECT_EQ(std::filesystem::status(a).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  ASSERT_FALSE(done[3].ok());
  EXPECT_NE(done[3].error().message.find("cannot create " + blocked), std::string::npos) << done[3].error().message;
  EXPECT_EQ(done[3].error().context, "127.0.0.1");
  ASSERT_FALSE(done[4].ok());
  EXPECT_NE(done[4].error().message.find("skipped"), std::string::npos) << done[4].error().message;
  EXPECT_FALSE(std::filesystem::exists(a + ".after"));
  expect_serves_commands(*t, "127.0.0.1");
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
  expect_serves_commands(*t, "127.0.0.1");
}

TEST(SshRemoteCommand, QuotesTheWholeCommandForTheRemoteShell) {
  EXPECT_EQ(ssh_remote_command("echo 'a b'", seconds(5)),
            "exec 2>&1; exec timeout -k 10 5 bash -c 'echo '\\''a b'\\'''");
}

}  // namespace
}  // namespace aorta::cluster
