// The working-folder checks and the run lock, with real bash, stat and flock on
// real folders (issue 14). Ownership cases need root to chown to another user.
#include "job/workdir.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

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

// Running, and not a zombie waiting for a parent that is slow to reap it.
bool alive(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

// One node (this machine) and an aorta_path of its own, for the lock tests.
class WorkdirLock : public Workdir {
 protected:
  WorkdirLock() { fs::create_directories(repo); }
  fs::path repo = dir_.path() / "repo";
  cluster::LocalTransport local;
  config::Variant v = variant_at(repo);
  config::Cluster c = config::local_cluster("tester");
  NodeExec exec{local, v, c};
};

TEST_F(WorkdirLock, SecondRunIsRefusedNamingTheHolderUntilItReleases) {
  RunState first, second;
  std::vector<std::string> notes;
  first.run_id = "11111111111111111111111111111111";
  second.run_id = "22222222222222222222222222222222";
  ASSERT_TRUE(acquire_workdir_locks(exec, first, notes));
  ASSERT_EQ(first.workdir_locks.count("localhost"), 1u);
  long holder = first.workdir_locks["localhost"];
  EXPECT_TRUE(alive(holder));
  EXPECT_EQ(fs::status(repo / ".cvs-aorta").permissions() & fs::perms::all, fs::perms::owner_all);

  Status refused = acquire_workdir_locks(exec, second, notes);
  ASSERT_FALSE(refused);
  const std::string& m = refused.error().message;
  EXPECT_NE(m.find("node localhost: aorta_path " + repo.string() + " in use by another run (run " + first.run_id +
                   ", host "),
            std::string::npos)
      << m;
  EXPECT_NE(m.find(", pid " + std::to_string(getpid()) + ", started 20"), std::string::npos) << m;
  EXPECT_NE(m.find("lock holder pid " + std::to_string(holder) + " on this node"), std::string::npos) << m;
  EXPECT_TRUE(second.workdir_locks.empty());

  // Releasing the second (which holds nothing) leaves the first alone.
  EXPECT_TRUE(release_workdir_locks(exec, second));
  EXPECT_TRUE(alive(holder));
  ASSERT_TRUE(release_workdir_locks(exec, first));
  EXPECT_FALSE(alive(holder));
  EXPECT_TRUE(first.workdir_locks.empty());
  ASSERT_TRUE(acquire_workdir_locks(exec, second, notes));
  // A holder that died (the suite killed outright) leaves no stale lock behind.
  long second_holder = second.workdir_locks["localhost"];
  ASSERT_EQ(kill(-static_cast<pid_t>(second_holder), SIGKILL), 0);
  for (int i = 0; i < 50 && alive(second_holder); ++i) usleep(20000);
  RunState third;
  third.run_id = "33333333333333333333333333333333";
  EXPECT_TRUE(acquire_workdir_locks(exec, third, notes));
  EXPECT_TRUE(release_workdir_locks(exec, third));
  EXPECT_TRUE(notes.empty()) << notes.front();  // nothing was taken over
}

// The owner line with `from` replaced by `to`: another suite pid (the suite killed
// outright, a second Ctrl-C or SIGKILL, leaves its holder running for hours) or
// another head node.
void rewrite_owner_line(const fs::path& repo, const std::string& from, const std::string& to) {
  const fs::path owner = repo / ".cvs-aorta" / "lock.localhost.owner";
  std::ifstream in(owner);
  std::string line((std::istreambuf_iterator<char>(in)), {});
  in.close();
  ASSERT_NE(line.find(from), std::string::npos) << line;
  line.replace(line.find(from), from.size(), to);
  std::ofstream(owner) << line;
}

std::string pid_field(long pid) { return ", pid " + std::to_string(pid) + ","; }

// A pid that no process has: a child that has ended and been reaped.
long gone_pid() {
  pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return child;
}

// Issue 29 (7): the lock of a suite that ran on this head node and is gone is taken
// over, saying so; the old holder is ended. A live owner's lock is never taken.
TEST_F(WorkdirLock, AnAbandonedLockOfThisHeadNodeIsTakenOver) {
  RunState killed, next;
  killed.run_id = "44444444444444444444444444444444";
  next.run_id = "55555555555555555555555555555555";
  std::vector<std::string> notes;
  ASSERT_TRUE(acquire_workdir_locks(exec, killed, notes));
  const long old_holder = killed.workdir_locks["localhost"];
  rewrite_owner_line(repo, pid_field(getpid()), pid_field(gone_pid()));
  Status taken = acquire_workdir_locks(exec, next, notes);
  ASSERT_TRUE(taken) << taken.error().message;
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].find("node localhost: took over the aorta_path lock of run " + killed.run_id +
                          ": its suite (pid "),
            0u)
      << notes[0];
  EXPECT_NE(notes[0].find("is no longer running; its lock holder (pid " + std::to_string(old_holder) + ") was ended"),
            std::string::npos)
      << notes[0];
  for (int i = 0; i < 50 && alive(old_holder); ++i) usleep(20000);
  EXPECT_FALSE(alive(old_holder));
  EXPECT_TRUE(alive(next.workdir_locks["localhost"]));
  EXPECT_TRUE(release_workdir_locks(exec, next));
}

// A live pid that started before the lock was taken (pid 1, at boot) keeps its lock,
// and so does one that names another head node, even with a pid gone here.
TEST_F(WorkdirLock, OnlyAGoneSuiteOfThisHeadNodeLosesItsLock) {
  RunState first, second;
  first.run_id = "66666666666666666666666666666666";
  second.run_id = "77777777777777777777777777777777";
  std::vector<std::string> notes;
  ASSERT_TRUE(acquire_workdir_locks(exec, first, notes));
  rewrite_owner_line(repo, pid_field(getpid()), pid_field(1));
  EXPECT_FALSE(acquire_workdir_locks(exec, second, notes));
  // The owner line names another head node: nothing here can tell whether it lives.
  char here[256] = {};
  gethostname(here, sizeof(here) - 1);
  rewrite_owner_line(repo, std::string(", host ") + here + ",", ", host other-head,");
  rewrite_owner_line(repo, pid_field(1), pid_field(gone_pid()));
  Status refused = acquire_workdir_locks(exec, second, notes);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("host other-head"), std::string::npos) << refused.error().message;
  EXPECT_TRUE(notes.empty());
  EXPECT_TRUE(release_workdir_locks(exec, first));
}

}  // namespace
}  // namespace aorta::job
