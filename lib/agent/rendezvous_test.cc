#include "agent/rendezvous.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "tests/temp_dir.h"

namespace aorta::agent {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

mode_t mode_of(const fs::path& p) {
  struct stat st {};
  ::lstat(p.c_str(), &st);
  return st.st_mode & 0777;
}

TEST(Rendezvous, RankZeroMakesAPrivateFolderAndSecretThatAnAgentJoins) {
  testing::TempDir dir;
  auto made = Rendezvous::create(dir.path(), "42.0");
  ASSERT_TRUE(made.ok()) << made.error().describe();
  EXPECT_EQ(made->folder(), dir.path() / (".aorta_suite_agents." + std::to_string(::geteuid())) / "42.0");
  EXPECT_EQ(mode_of(made->folder()), 0700u);
  EXPECT_EQ(mode_of(made->folder().parent_path()), 0700u);
  EXPECT_EQ(mode_of(made->folder() / "secret"), 0600u);
  EXPECT_EQ(made->secret().size(), 64u);
  auto joined = Rendezvous::join(dir.path(), "42.0", seconds(1));
  ASSERT_TRUE(joined.ok()) << joined.error().describe();
  EXPECT_EQ(joined->secret(), made->secret());
  auto other = Rendezvous::create(dir.path(), "43.0");
  EXPECT_NE(other->secret(), made->secret()) << "a secret per job";
}

TEST(Rendezvous, ASecondRankZeroOfTheSameJobIsRefused) {
  testing::TempDir dir;
  ASSERT_TRUE(Rendezvous::create(dir.path(), "7.1").ok());
  auto second = Rendezvous::create(dir.path(), "7.1");
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("job 7.1 already has a rank 0"), std::string::npos) << second.error().message;
}

TEST(Rendezvous, AnAgentWaitsForTheSecretThenJoins) {
  testing::TempDir dir;
  std::string made_secret;
  std::thread rank0([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // rank 0 starts after the agent
    made_secret = Rendezvous::create(dir.path(), "5.0")->secret();
  });
  auto joined = Rendezvous::join(dir.path(), "5.0", seconds(10));
  rank0.join();
  ASSERT_TRUE(joined.ok()) << joined.error().describe();
  EXPECT_EQ(joined->secret(), made_secret);
}

TEST(Rendezvous, NoSecretInTimeSaysWhatToCheck) {
  testing::TempDir dir;
  auto joined = Rendezvous::join(dir.path(), "5.0", seconds(1));
  ASSERT_FALSE(joined.ok());
  EXPECT_EQ(joined.error().code, ErrorCode::kTimeout);
  EXPECT_NE(joined.error().message.find("storage every node of the job sees"), std::string::npos);
}

TEST(Rendezvous, AFolderOrSecretOthersCanReadIsRefused) {
  testing::TempDir dir;
  auto made = Rendezvous::create(dir.path(), "9.0");
  ASSERT_TRUE(made.ok());
  ::chmod(made->folder().c_str(), 0755);
  auto open_folder = Rendezvous::join(dir.path(), "9.0", seconds(1));
  ASSERT_FALSE(open_folder.ok());
  EXPECT_NE(open_folder.error().message.find("mode must be 0700"), std::string::npos);
  ::chmod(made->folder().c_str(), 0700);
  ::chmod((made->folder() / "secret").c_str(), 0644);
  auto open_secret = Rendezvous::join(dir.path(), "9.0", seconds(1));
  ASSERT_FALSE(open_secret.ok());
  EXPECT_NE(open_secret.error().message.find("mode 0600"), std::string::npos);
}

TEST(Rendezvous, APlantedLinkIsNotTheAgentsFolder) {
  testing::TempDir dir;
  fs::create_directories(dir.path() / "elsewhere");
  fs::create_directory_symlink(dir.path() / "elsewhere", rendezvous_folder(dir.path(), "3.0").parent_path());
  auto made = Rendezvous::create(dir.path(), "3.0");
  ASSERT_FALSE(made.ok());
  EXPECT_NE(made.error().message.find("unsafe: not a folder"), std::string::npos) << made.error().message;
  EXPECT_TRUE(fs::is_empty(dir.path() / "elsewhere"));
}

// Probe 15 (issue 42): another user made the usual name first in a shared sticky
// root (a folder or a link of theirs). Rank 0 makes a fresh folder of its own beside
// it and the agents find it by its owner; another user's folder named like a fresh
// one, even holding the job and a secret, is never taken for it.
TEST(Rendezvous, ANameSquattedByAnotherUserIsSteppedAroundNotTrusted) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a folder of another user";
  for (bool link : {false, true}) {
    testing::TempDir dir;
    ::chmod(dir.path().c_str(), 01777);
    const fs::path usual = rendezvous_folder(dir.path(), "77.0").parent_path();
    if (link) fs::create_directory_symlink(dir.path(), usual);
    else fs::create_directories(usual / "77.0");
    ASSERT_EQ(::lchown(usual.c_str(), 65534, 65534), 0);
    const fs::path decoy = usual.string() + ".AAAAAA";  // the shape of a fresh name, another user's
    fs::create_directories(decoy / "77.0");
    { std::ofstream(decoy / "77.0" / "secret") << std::string(64, 'a'); }
    ::chmod(decoy.c_str(), 0700);
    for (const auto& p : {decoy, decoy / "77.0", decoy / "77.0" / "secret"})
      ASSERT_EQ(::chown(p.c_str(), 65534, 65534), 0);
    auto made = Rendezvous::create(dir.path(), "77.0");
    ASSERT_TRUE(made.ok()) << made.error().describe();
    const fs::path fresh = made->folder().parent_path();
    EXPECT_EQ(fresh.parent_path(), dir.path());
    EXPECT_EQ(fresh.filename().string().rfind(usual.filename().string() + ".", 0), 0u) << fresh;
    EXPECT_NE(fresh, decoy);
    EXPECT_EQ(mode_of(fresh), 0700u);
    EXPECT_EQ(mode_of(made->folder() / "secret"), 0600u);
    auto joined = Rendezvous::join(dir.path(), "77.0", seconds(1));
    ASSERT_TRUE(joined.ok()) << joined.error().describe();
    EXPECT_EQ(joined->folder(), made->folder());
    EXPECT_EQ(joined->secret(), made->secret());
    auto second = Rendezvous::create(dir.path(), "77.0");
    ASSERT_FALSE(second.ok());
    EXPECT_NE(second.error().message.find("job 77.0 already has a rank 0"), std::string::npos)
        << second.error().message;
    made->remove();
    EXPECT_FALSE(fs::exists(fresh)) << "the fresh folder is the job's alone";
    EXPECT_TRUE(fs::exists(decoy / "77.0" / "secret")) << "another user's folder is left alone";
  }
}

TEST(Rendezvous, RankZeroGetsEveryAgentsAddressOrNamesTheMissing) {
  testing::TempDir dir;
  auto made = Rendezvous::create(dir.path(), "11.0");
  auto agent = Rendezvous::join(dir.path(), "11.0", seconds(1));
  ASSERT_TRUE(agent->publish({1, "node2", "10.0.0.2", 4567, 99}).ok());
  std::vector<size_t> ready_counts;
  auto partial = made->await(
      2, seconds(1), [&](size_t ready, size_t, double, double) { ready_counts.push_back(ready); }, {});
  ASSERT_FALSE(partial.ok());
  EXPECT_NE(partial.error().message.find("no agent from rank(s) 0 within 1 s"), std::string::npos);
  EXPECT_EQ(ready_counts, (std::vector<size_t>{1}));
  ASSERT_TRUE(agent->publish({0, "node1", "10.0.0.1", 1234, 98}).ok());
  auto all = made->await(2, seconds(1), {}, {});
  ASSERT_TRUE(all.ok()) << all.error().describe();
  EXPECT_EQ((*all)[1].host, "node2");
  EXPECT_EQ((*all)[1].port, 4567);
  EXPECT_EQ((*all)[0].address, "10.0.0.1");
  auto stopped = made->await(3, seconds(30), {}, [] { return std::string("the agent step ended: exit 1"); });
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.error().message, "the agent step ended: exit 1");
  made->remove();
  EXPECT_FALSE(fs::exists(made->folder()));
}

}  // namespace
}  // namespace aorta::agent
