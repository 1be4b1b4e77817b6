// The working-folder checks, with real bash and stat on real folders (issue 14).
// Ownership cases need root to chown to another user.
#include "job/workdir.h"

#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "common/shell_quote.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

namespace fs = std::filesystem;
constexpr uid_t kNobody = 65534;

cluster::CommandResult check(const fs::path& path, int strict) {
  cluster::LocalTransport local;
  auto r = local.run("localhost", workdir_check_command(path.string(), strict), std::chrono::seconds(30));
  EXPECT_TRUE(r.ok());
  return r.ok() ? *r : cluster::CommandResult{};
}

config::Variant variant_at(const fs::path& repo) {
  config::Variant v;
  v.aorta_path = repo.string();
  v.container.runtime = config::RuntimeKind::kNone;
  v.timeout_seconds = 60;
  return v;
}

// The temp folder itself is root's (or the tester's) and 0700 below sticky /tmp.
class Workdir : public ::testing::Test {
 protected:
  void SetUp() override { fs::permissions(dir_.path(), fs::perms::owner_all, fs::perm_options::replace); }
  aorta::testing::TempDir dir_;
};

TEST_F(Workdir, PrivateFolderPasses) {
  cluster::LocalTransport local;
  fs::path repo = dir_.path() / "fs" / "aorta";
  auto made = local.run("localhost", private_mkdir_command((dir_.path() / "fs").string()), std::chrono::seconds(10));
  ASSERT_TRUE(made.ok() && made->exit_code == 0);
  EXPECT_EQ(fs::status(dir_.path() / "fs").permissions() & fs::perms::all, fs::perms::owner_all);
  auto r = check(repo, 2);  // the checkout is not there yet
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(Workdir, FolderOfAnotherUserIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to chown to nobody";
  fs::path planted = dir_.path() / "fs";
  fs::create_directories(planted / "aorta" / "scripts");
  ASSERT_EQ(chown(planted.c_str(), kNobody, kNobody), 0);
  auto r = check(planted / "aorta", 2);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("UNSAFE " + planted.string() + " belongs to uid 65534 (nobody), not to you (uid 0) or root"),
            std::string::npos)
      << r.output;
  // The same plant one level down: the checkout itself is another user's.
  ASSERT_EQ(chown(planted.c_str(), 0, 0), 0);
  ASSERT_EQ(chown((planted / "aorta").c_str(), kNobody, kNobody), 0);
  r = check(planted / "aorta", 1);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find((planted / "aorta").string() + " belongs to uid 65534"), std::string::npos) << r.output;
}

TEST_F(Workdir, WritableByOthersIsRefusedUnlessAnAncestorIsSticky) {
  fs::path repo = dir_.path() / "repo";
  fs::create_directories(repo);
  fs::permissions(repo, fs::perms::all, fs::perm_options::replace);
  auto r = check(repo, 1);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find(repo.string() + " is writable by group or others (mode 0777)"), std::string::npos) << r.output;
  // Group-writable is refused as well, and sticky does not excuse the folder itself.
  fs::permissions(repo, fs::perms::owner_all | fs::perms::group_all | fs::perms::sticky_bit, fs::perm_options::replace);
  r = check(repo, 1);
  EXPECT_NE(r.output.find("(mode 1770)"), std::string::npos) << r.output;
  // Above the strict levels a sticky world-writable folder (as /tmp) is fine, a
  // plain world-writable one is not.
  fs::permissions(repo, fs::perms::owner_all, fs::perm_options::replace);
  fs::permissions(dir_.path(), fs::perms::all | fs::perms::sticky_bit, fs::perm_options::replace);
  EXPECT_EQ(check(repo, 1).exit_code, 0);
  fs::permissions(dir_.path(), fs::perms::all, fs::perm_options::replace);
  r = check(repo, 1);
  EXPECT_NE(r.output.find(dir_.path().string() + " is writable by group or others (mode 0777)"), std::string::npos)
      << r.output;
  // In clone mode the folder above the checkout is held to the strict rule.
  fs::permissions(dir_.path(), fs::perms::all | fs::perms::sticky_bit, fs::perm_options::replace);
  EXPECT_EQ(check(repo, 2).exit_code, 3);
}

// The checkout is yours and private, but what runs is inside it: a script someone
// else may write, or a folder someone else owns, is refused by name.
TEST_F(Workdir, ContentInsideTheCheckoutIsCheckedToo) {
  fs::path repo = dir_.path() / "repo";
  fs::create_directories(repo / "scripts");
  std::ofstream(repo / "scripts" / "launch.sh") << "echo hi\n";
  fs::permissions(repo, fs::perms::owner_all, fs::perm_options::replace);
  EXPECT_EQ(check(repo, 1).exit_code, 0);
  fs::permissions(repo / "scripts" / "launch.sh", static_cast<fs::perms>(0666), fs::perm_options::replace);
  auto r = check(repo, 1);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find((repo / "scripts" / "launch.sh").string() +
                          " (inside aorta_path) is writable by group or others (mode 0666)"),
            std::string::npos)
      << r.output;
  fs::permissions(repo / "scripts" / "launch.sh", fs::perms::owner_read | fs::perms::owner_write,
                  fs::perm_options::replace);
  if (geteuid() != 0) return;  // chown to another user needs root
  ASSERT_EQ(chown((repo / "scripts").c_str(), kNobody, kNobody), 0);
  r = check(repo, 1);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find((repo / "scripts").string() + " (inside aorta_path) belongs to uid 65534"),
            std::string::npos)
      << r.output;
}

TEST_F(Workdir, LinkToAFolderOfAnotherUserIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to chown to nobody";
  fs::path theirs = dir_.path() / "theirs";
  fs::create_directories(theirs);
  ASSERT_EQ(chown(theirs.c_str(), kNobody, kNobody), 0);
  fs::create_directory_symlink(theirs, dir_.path() / "link");
  auto r = check(dir_.path() / "link", 1);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find(theirs.string() + " belongs to uid 65534"), std::string::npos) << r.output;
}

TEST_F(Workdir, CheckWorkdirNamesTheNodeAndTheOptOut) {
  fs::path repo = dir_.path() / "repo";
  fs::create_directories(repo);
  fs::permissions(repo, fs::perms::all, fs::perm_options::replace);
  cluster::LocalTransport local;
  config::Variant v = variant_at(repo);
  config::Cluster c = config::local_cluster("tester");
  NodeExec exec(local, v, c);
  Status s = check_workdir(exec);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("aorta_path " + repo.string() + " is not safe to run from: node localhost: " +
                                   repo.string() + " is writable by group or others (mode 0777)"),
            std::string::npos)
      << s.error().message;
  EXPECT_NE(s.error().message.find("\"trust_aorta_path\": true"), std::string::npos);
  v.trust_aorta_path = true;
  EXPECT_TRUE(check_workdir(exec));
}

}  // namespace
}  // namespace aorta::job
