// The SSH transport's batches against a real sshd on loopback: nodes and a node's
// streams at once, each stream on a connection of its own, and stopped nodes.
#include "cluster/ssh_transport.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "common/shell_quote.h"
#include "tests/ssh_transport_fixture.h"

namespace aorta::cluster {
namespace {
using std::chrono::seconds;
using aorta::testing::TempDir;

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
  expect_serves_commands(*t, "127.0.0.1");
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
  expect_serves_commands(*t, "127.0.0.1");
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

}  // namespace
}  // namespace aorta::cluster
