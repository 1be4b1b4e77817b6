#include "cluster/local_transport.h"

#include <chrono>

#include <gtest/gtest.h>

#include "tests/temp_dir.h"

namespace aorta::cluster {
namespace {

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
  auto r = t.stream("localhost", "printf 'a\\0b'; echo warn >&2; exit 4", dest, std::chrono::seconds(10));
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
  EXPECT_TRUE(t.download("localhost", src.string(), dir.path() / "b.txt").ok());
  auto missing = t.download("localhost", (dir.path() / "nope").string(), dir.path() / "c.txt");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

TEST(Transport, FanOutReportsEachFailedHost) {
  LocalTransport t;
  auto results = run_on_hosts(t, {"a", "b"}, {"true", "echo broken; exit 3"}, std::chrono::seconds(10));
  EXPECT_FALSE(all_succeeded(results));
  EXPECT_EQ(describe_failures(results), "b: exit 3: broken\n");
}

}  // namespace
}  // namespace aorta::cluster
