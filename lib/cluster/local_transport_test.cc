#include "cluster/local_transport.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>

#include <gtest/gtest.h>

#include "tests/temp_dir.h"

namespace aorta::cluster {
namespace {

// Commands on several hosts at once, each leaving a detached job (a lock holder):
// no command's output may stay open through another command's job.
TEST(LocalTransport, ADetachedJobHoldsNoOtherCommandsOutputOpen) {
  LocalTransport t;
  std::vector<std::string> hosts(8, "localhost");
  const std::string command = "setsid nohup sleep 30 > /dev/null 2>&1 < /dev/null & echo $!";
  auto results = run_on_hosts(t, hosts, std::vector<std::string>(hosts.size(), command), std::chrono::seconds(10));
  std::string pids;
  for (const auto& r : results) {
    ASSERT_TRUE(r.result.ok()) << r.result.error().message;
    pids += " " + r.result->output.substr(0, r.result->output.find('\n'));
  }
  t.run("localhost", "kill" + pids, std::chrono::seconds(10));
}

TEST(LocalTransport, ExitCodeAndInterleavedOutput) {
  LocalTransport t;
  auto r = t.run("localhost", "echo out; echo err >&2; exit 7", std::chrono::seconds(10));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->exit_code, 7);
  EXPECT_EQ(r->output, "out\nerr\n");
}

// Issue 21: stdout into a file, stderr apart, the exit code.
TEST(LocalTransport, StreamWritesStdoutToAFileAndKeepsStderrApart) {
  aorta::testing::TempDir dir;
  LocalTransport t;
  auto dest = dir.path() / "out.bin";
  auto r = t.stream("localhost", "printf 'a\\0b'; echo warn >&2; exit 4", dest, std::chrono::seconds(10),
                    kNoByteLimit);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->exit_code, 4);
  EXPECT_EQ(r->errors, "warn\n");
  EXPECT_EQ(r->bytes, 3u);
  EXPECT_EQ(std::filesystem::file_size(dest), 3u);
}

TEST(LocalTransport, TimeoutKillsTheWholeGroup) {
  aorta::testing::TempDir dir;
  LocalTransport t;
  auto marker = dir.path() / "survivor";
  auto begin = std::chrono::steady_clock::now();
  auto r = t.run("localhost", "(sleep 3; touch " + marker.string() + ") & sleep 30", std::chrono::seconds(1));
  auto took = std::chrono::steady_clock::now() - begin;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kTimeout);
  EXPECT_EQ(r.error().context, "localhost");
  EXPECT_LT(took, std::chrono::seconds(5));
  std::this_thread::sleep_for(std::chrono::milliseconds(3500));
  EXPECT_FALSE(std::filesystem::exists(marker)) << "a child of the timed-out command survived";
}

TEST(LocalTransport, DownloadCopiesAndNamesMissingFiles) {
  aorta::testing::TempDir dir;
  LocalTransport t;
  auto src = dir.write("a.txt", "hello");
  EXPECT_TRUE(t.download("localhost", src.string(), dir.path() / "b.txt", 5).ok());
  std::ifstream copied(dir.path() / "b.txt");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(copied), {}), "hello");
  auto missing = t.download("localhost", (dir.path() / "nope").string(), dir.path() / "c.txt", kNoByteLimit);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

// Issue 29 (9): what arrives is checked as it arrives. `yes` never ends: without the
// limit the stream would run to its timeout, writing all the while.
TEST(LocalTransport, CopiesStopAtTheirLimit) {
  aorta::testing::TempDir dir;
  LocalTransport t;
  auto begin = std::chrono::steady_clock::now();
  auto r = t.stream("localhost", "yes", dir.path() / "yes.out", std::chrono::seconds(60), 1 << 20);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("more than the 1048576 bytes yes.out may take"), std::string::npos)
      << r.error().message;
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(30));
  auto src = dir.write("a.txt", "hello!");
  auto over = t.download("localhost", src.string(), dir.path() / "b.txt", 5);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("more than the 5 bytes b.txt may take"), std::string::npos)
      << over.error().message;
  auto fifo = dir.path() / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto not_regular = t.download("localhost", fifo.string(), dir.path() / "c.txt", kNoByteLimit);
  ASSERT_FALSE(not_regular.ok());
  EXPECT_NE(not_regular.error().message.find("not a regular file"), std::string::npos);
}

// Issue 29 (8): a command printing without end is stopped at kCommandOutputLimit,
// and 256 MiB on a stream's stderr is read and dropped past its first 64 KiB: this
// process's peak memory grows by far less than what was written.
TEST(LocalTransport, OutputAndStderrAreBounded) {
  aorta::testing::TempDir dir;
  LocalTransport t;
  auto printed = t.run("localhost", "yes", std::chrono::seconds(60));
  ASSERT_FALSE(printed.ok());
  EXPECT_NE(printed.error().message.find("printed more than 64 MiB"), std::string::npos) << printed.error().message;
  rusage before{}, after{};
  ::getrusage(RUSAGE_SELF, &before);
  auto r = t.stream("localhost", "head -c 268435456 /dev/zero >&2; echo ok", dir.path() / "out", std::chrono::seconds(60),
                    kNoByteLimit);
  ::getrusage(RUSAGE_SELF, &after);
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_EQ(r->errors.size(), kStreamErrorsKept);
  EXPECT_EQ(r->bytes, 3u);
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 64 * 1024) << "KiB of peak memory grew";  // ru_maxrss is in KiB
}

TEST(Transport, FanOutReportsEachFailedHost) {
  LocalTransport t;
  auto results = run_on_hosts(t, {"a", "b"}, {"true", "echo broken; exit 3"}, std::chrono::seconds(10));
  EXPECT_FALSE(all_succeeded(results));
  EXPECT_EQ(describe_failures(results), "b: exit 3: broken\n");
}

}  // namespace
}  // namespace aorta::cluster
