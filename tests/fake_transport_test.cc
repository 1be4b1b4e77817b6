// The test double itself: rule precedence, regex and error rules, the command
// record and served downloads, so a stage test that relies on them means what it says.
#include "tests/fake_transport.h"

#include <fstream>

#include <gtest/gtest.h>

#include "tests/temp_dir.h"

namespace aorta::testing {
namespace {

using std::chrono::seconds;

TEST(FakeTransport, LaterRulesWinAndUnmatchedCommandsSucceed) {
  FakeTransport fake;
  fake.on(FakeTransport::kAnyHost, "id -u", 0, "1000\n");
  fake.on("n2", "id -u", 1, "no such user");
  fake.on_regex("n1", "^docker (run|rm)\\b", 125, "engine down");
  fake.fail("n3", "id", Error{ErrorCode::kTimeout, "timed out", "n3"});
  EXPECT_EQ(fake.run("n1", "id -u", seconds(1))->output, "1000\n");
  EXPECT_EQ(fake.run("n2", "id -u", seconds(1))->exit_code, 1);
  EXPECT_EQ(fake.run("n1", "docker rm -f x", seconds(1))->exit_code, 125);
  EXPECT_EQ(fake.run("n1", "sudo docker run x", seconds(1))->exit_code, 0);  // regex anchored at the start
  auto timed_out = fake.run("n3", "id -u", seconds(1));
  ASSERT_FALSE(timed_out.ok());
  EXPECT_EQ(timed_out.error().code, ErrorCode::kTimeout);
  auto plain = fake.run("n1", "true", seconds(1));
  EXPECT_EQ(plain->exit_code, 0);
  EXPECT_EQ(plain->output, "");
  EXPECT_EQ(fake.commands("n1"), (std::vector<std::string>{"id -u", "docker rm -f x", "sudo docker run x", "true"}));
  EXPECT_EQ(fake.commands_with("n1", "docker"), (std::vector<std::string>{"docker rm -f x", "sudo docker run x"}));
  EXPECT_TRUE(fake.commands("n4").empty());
}

TEST(FakeTransport, BatchesRecordEveryHost) {
  FakeTransport fake;
  auto results = cluster::run_on_hosts(fake, {"a", "b", "c"}, {"echo a", "echo b", "echo c"}, seconds(1));
  ASSERT_EQ(results.size(), 3u);
  for (const char* host : {"a", "b", "c"}) EXPECT_EQ(fake.commands(host), std::vector<std::string>{std::string("echo ") + host});
}

TEST(FakeTransport, DownloadsComeFromTheHostsFolder) {
  TempDir dir;
  dir.write("n1/srv/trace.json", "n1's trace");
  dir.write("any/srv/trace.json", "everyone's trace");
  FakeTransport fake;
  fake.serve_files("n1", dir.path() / "n1");
  fake.serve_files(FakeTransport::kAnyHost, dir.path() / "any");
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  ASSERT_TRUE(fake.download("n1", "/srv/trace.json", dir.path() / "got1", cluster::kNoByteLimit).ok());
  EXPECT_EQ(read(dir.path() / "got1"), "n1's trace");
  ASSERT_TRUE(fake.download("n2", "/srv/trace.json", dir.path() / "got2", cluster::kNoByteLimit).ok());
  EXPECT_EQ(read(dir.path() / "got2"), "everyone's trace");
  auto missing = fake.download("n1", "/srv/none.json", dir.path() / "got3", cluster::kNoByteLimit);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().describe(), "n1: /srv/none.json: no such file");
  EXPECT_EQ(fake.downloads("n1"), (std::vector<std::string>{"/srv/trace.json", "/srv/none.json"}));
}

}  // namespace
}  // namespace aorta::testing
