// The checkout's run lock with real bash, mkdir and processes on this machine (issue
// 42): one run per checkout whatever node it comes from, owners told apart by boot
// id, pid namespace and start ticks, and a takeover that ends the dead run's work.
#include "job/checkout_lock.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "common/shell_quote.h"
#include "job/last_will.h"
#include "job/lock_owner.h"
#include "job/phase.h"
#include "tests/process_state.h"
#include "tests/local_nodes.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

namespace fs = std::filesystem;

bool alive(long pid) { return aorta::testing::process_alive(static_cast<pid_t>(pid)); }
void wait_gone(long pid) { aorta::testing::gone_within(static_cast<pid_t>(pid), std::chrono::seconds(5)); }

// A pid that no process has: a child that has ended and been reaped.
long gone_pid() {
  pid_t child = fork();
  if (child == 0) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return child;
}

config::Cluster nodes(const std::vector<std::string>& names) { return aorta::testing::local_nodes(names); }

// This machine as one or more nodes (the local transport runs every node's command
// here): several nodes of one checkout are nodes on shared storage.
class CheckoutLock : public ::testing::Test {
 protected:
  CheckoutLock() {
    fs::permissions(dir_.path(), fs::perms::owner_all, fs::perm_options::replace);
    fs::create_directories(repo);
    v.aorta_path = repo.string();
    v.container.runtime = config::RuntimeKind::kNone;
    v.timeout_seconds = 60;
  }
  // A test that stopped at a failed assertion leaves nothing running: every process
  // whose command line names this test's checkout is ended.
  ~CheckoutLock() override {
    // The path in two parts, so that this command's own shell does not match it.
    local.run("localhost", "d=" + shell_quote(dir_.path().string()) + "; pkill -KILL -f -- \"$d/repo\"; true",
              std::chrono::seconds(10));
  }
  fs::path owner_file() const { return repo / ".cvs-aorta" / "lock" / "owner"; }
  // Replaces `from` by `to` in the owner file's line `line` (0: the suite, 1: the holder).
  void rewrite_owner(int line, const std::string& from, const std::string& to) {
    std::ifstream in(owner_file());
    std::string lines[2];
    std::getline(in, lines[0]);
    std::getline(in, lines[1]);
    in.close();
    ASSERT_NE(lines[line].find(from), std::string::npos) << lines[line];
    lines[line].replace(lines[line].find(from), from.size(), to);
    std::ofstream(owner_file()) << lines[0] << "\n" << lines[1] << "\n";
  }
  RunState run(const std::string& id) {
    RunState s;
    s.run_id = id;
    return s;
  }
  aorta::testing::TempDir dir_;
  fs::path repo = dir_.path() / "repo";
  cluster::LocalTransport local;
  config::Variant v;
  config::Cluster one = nodes({"localhost"});
  NodeExec exec{local, v, one};
};

TEST_F(CheckoutLock, SecondRunIsRefusedNamingTheHolderUntilItReleases) {
  RunState first = run("11111111111111111111111111111111"), second = run("22222222222222222222222222222222");
  std::vector<std::string> notes;
  ASSERT_TRUE(acquire_workdir_locks(exec, first, notes));
  const long holder = first.workdir_locks.at("localhost");
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
  EXPECT_NE(m.find("lock holder pid " + std::to_string(holder) + " on node "), std::string::npos) << m;
  EXPECT_TRUE(second.workdir_locks.empty());
  EXPECT_TRUE(release_workdir_locks(exec, second));  // it holds nothing: the first keeps its lock
  EXPECT_TRUE(alive(holder));
  ASSERT_TRUE(release_workdir_locks(exec, first));
  EXPECT_FALSE(alive(holder));
  EXPECT_FALSE(fs::exists(repo / ".cvs-aorta" / "lock"));
  ASSERT_TRUE(acquire_workdir_locks(exec, second, notes));
  EXPECT_TRUE(release_workdir_locks(exec, second));
  EXPECT_TRUE(notes.empty()) << notes.front();
}

// The lock is the checkout's: a run on another node of the same (shared) checkout is
// refused, and the nodes of one run share it (one holder, the others join).
TEST_F(CheckoutLock, OneCheckoutOneRunFromAnyNode) {
  config::Cluster other = nodes({"node2"}), both = nodes({"node1", "node2"});
  NodeExec on_other{local, v, other}, on_both{local, v, both};
  RunState a = run("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), b = run("bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
  std::vector<std::string> notes;
  ASSERT_TRUE(acquire_workdir_locks(exec, a, notes));
  Status refused = acquire_workdir_locks(on_other, b, notes);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("node node2: aorta_path " + repo.string() + " in use by another run (run " +
                                         a.run_id + ","),
            std::string::npos)
      << refused.error().message;
  ASSERT_TRUE(release_workdir_locks(exec, a));
  Status taken = acquire_workdir_locks(on_both, b, notes);
  ASSERT_TRUE(taken) << taken.error().message;
  ASSERT_EQ(b.workdir_locks.size(), 2u);
  EXPECT_EQ((b.workdir_locks["node1"] > 0) + (b.workdir_locks["node2"] > 0), 1) << "one holder, one node joined";
  EXPECT_FALSE(acquire_workdir_locks(exec, a, notes)) << "the other run is refused from any node";
  ASSERT_TRUE(release_workdir_locks(on_both, b));
  EXPECT_FALSE(fs::exists(repo / ".cvs-aorta" / "lock"));
  EXPECT_TRUE(notes.empty());
}

// Probe 05: the suite killed outright. The next run ends the dead run's training
// (from the will it kept beside the lock) and its holder before it takes the lock.
TEST_F(CheckoutLock, AGoneSuitesTrainingAndHolderAreEndedBeforeTheTakeover) {
  RunState killed = run("44444444444444444444444444444444"), next = run("55555555555555555555555555555555");
  std::vector<std::string> notes;
  ASSERT_TRUE(acquire_workdir_locks(exec, killed, notes));
  const long old_holder = killed.workdir_locks.at("localhost");
  ASSERT_TRUE(start_phase(exec, killed, "benchmark", {"sleep 600"}, Rendezvous{}));
  const long training = killed.phase_pids["benchmark"].at("localhost");
  ASSERT_TRUE(update_last_wills(exec, killed));
  ASSERT_TRUE(fs::exists(last_will_file(v, killed.run_id, "localhost")));
  rewrite_owner(0, ", pid " + std::to_string(getpid()) + ",", ", pid " + std::to_string(gone_pid()) + ",");
  Status taken = acquire_workdir_locks(exec, next, notes);
  ASSERT_TRUE(taken) << taken.error().message;
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].find("node localhost: took over the aorta_path lock of run " + killed.run_id + ": its suite (pid "),
            0u)
      << notes[0];
  EXPECT_NE(notes[0].find("is no longer running; what it had started on this node was ended first"),
            std::string::npos)
      << notes[0];
  EXPECT_FALSE(alive(training)) << "the dead run's training is ended before the new run starts";
  wait_gone(old_holder);
  EXPECT_FALSE(alive(old_holder));
  EXPECT_FALSE(fs::exists(last_will_file(v, killed.run_id, "localhost")));
  EXPECT_TRUE(alive(next.workdir_locks.at("localhost")));
  EXPECT_TRUE(release_workdir_locks(exec, next));
}

// Probe 06 and the clock: only the kernel's own names decide. An owner in another pid
// namespace or another boot (a container with host networking, a cloned VM with the
// same host name) is never taken over, however free its pid is here; a wall-clock
// step does not make a live owner look gone.
TEST_F(CheckoutLock, OnlyAnOwnerProvedGoneByBootNamespaceAndTicksLosesItsLock) {
  RunState first = run("66666666666666666666666666666666"), second = run("77777777777777777777777777777777");
  std::vector<std::string> notes;
  ASSERT_TRUE(acquire_workdir_locks(exec, first, notes));
  const LockOwner me = this_suite(first.run_id);
  rewrite_owner(0, ", started 20", ", started 19");  // a clock that stepped: the start is not read
  EXPECT_FALSE(acquire_workdir_locks(exec, second, notes)) << "a live owner keeps its lock";
  const std::string gone = ", pid " + std::to_string(gone_pid()) + ",";
  rewrite_owner(0, ", pid " + std::to_string(getpid()) + ",", gone);
  rewrite_owner(0, "pidns " + me.process.pid_ns, "pidns pid:[1]");
  Status refused = acquire_workdir_locks(exec, second, notes);
  ASSERT_FALSE(refused) << "another pid namespace: its pid says nothing here";
  EXPECT_NE(refused.error().message.find("pidns pid:[1]"), std::string::npos) << refused.error().message;
  rewrite_owner(0, "pidns pid:[1]", "pidns " + me.process.pid_ns);
  rewrite_owner(0, "boot " + me.process.boot_id, "boot 00000000-0000-0000-0000-000000000000");
  EXPECT_FALSE(acquire_workdir_locks(exec, second, notes)) << "another boot: its pid says nothing here";
  // The same pid alive but started at another tick is another process: the owner is gone.
  rewrite_owner(0, "boot 00000000-0000-0000-0000-000000000000", "boot " + me.process.boot_id);
  rewrite_owner(0, gone, ", pid " + std::to_string(getpid()) + ",");
  rewrite_owner(0, "ticks " + std::to_string(me.process.start_ticks), "ticks 1");
  EXPECT_TRUE(notes.empty());
  ASSERT_TRUE(acquire_workdir_locks(exec, second, notes));
  EXPECT_EQ(notes.size(), 1u);
  EXPECT_TRUE(release_workdir_locks(exec, second));
}

// A holder that ended (killed, its lifetime over) says nothing of its suite, which may
// still run: the lock stays, and the refusal says how to free it once the run is over.
TEST_F(CheckoutLock, AnEndedHolderDoesNotFreeTheLock) {
  RunState first = run("88888888888888888888888888888888"), second = run("99999999999999999999999999999999");
  std::vector<std::string> notes;
  ASSERT_TRUE(acquire_workdir_locks(exec, first, notes));
  const long holder = first.workdir_locks.at("localhost");
  ASSERT_EQ(kill(-static_cast<pid_t>(holder), SIGKILL), 0);
  wait_gone(holder);
  Status refused = acquire_workdir_locks(exec, second, notes);
  ASSERT_FALSE(refused);
  const std::string& m = refused.error().message;
  EXPECT_NE(m.find("in use by another run (run " + first.run_id + ","), std::string::npos) << m;
  EXPECT_NE(m.find("whose lock holder has ended"), std::string::npos) << m;
  EXPECT_NE(m.find("remove " + (repo / ".cvs-aorta" / "lock").string()), std::string::npos) << m;
  EXPECT_TRUE(fs::exists(owner_file()));
  EXPECT_TRUE(notes.empty());
  EXPECT_TRUE(release_workdir_locks(exec, first));
}

// Shared storage: a dead run's will for a node outside this run means that node may
// still train for it. Nothing is ended and the lock stays, naming the will; a run on
// all of its nodes takes it over and ends the training on each.
TEST_F(CheckoutLock, AWillLeftForANodeOutsideTheRunKeepsTheLockAndEndsNothing) {
  config::Cluster both = nodes({"node1", "node2"});
  NodeExec on_both{local, v, both};
  RunState killed = run("cccccccccccccccccccccccccccccccc"), next = run("dddddddddddddddddddddddddddddddd");
  std::vector<std::string> notes;
  ASSERT_TRUE(acquire_workdir_locks(on_both, killed, notes));
  ASSERT_TRUE(start_phase(on_both, killed, "benchmark", {"sleep 600", "sleep 600"}, Rendezvous{}));
  ASSERT_TRUE(update_last_wills(on_both, killed));
  rewrite_owner(0, ", pid " + std::to_string(getpid()) + ",", ", pid " + std::to_string(gone_pid()) + ",");
  Status refused = acquire_workdir_locks(exec, next, notes);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("may still train on nodes outside this run (will." + killed.run_id +
                                         ".node1 will." + killed.run_id + ".node2 in "),
            std::string::npos)
      << refused.error().message;
  for (const auto& [host, pid] : killed.phase_pids["benchmark"]) EXPECT_TRUE(alive(pid)) << host << ": nothing ended";
  EXPECT_TRUE(fs::exists(owner_file()));
  Status taken = acquire_workdir_locks(on_both, next, notes);
  ASSERT_TRUE(taken) << taken.error().message;
  EXPECT_EQ(notes.size(), 2u);
  for (const auto& [host, pid] : killed.phase_pids["benchmark"]) {
    wait_gone(pid);
    EXPECT_FALSE(alive(pid)) << host << ": the dead run's training is ended";
  }
  EXPECT_TRUE(release_workdir_locks(on_both, next));
  EXPECT_FALSE(fs::exists(repo / ".cvs-aorta" / "lock"));
}

}  // namespace
}  // namespace aorta::job
