// The last will run for real on this machine: what a node's agent runs when rank 0
// is killed must end the run's training and release its lock, and nothing else.
#include "job/last_will.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "job/checkout_lock.h"
#include "job/phase.h"
#include "tests/process_state.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

namespace fs = std::filesystem;

bool alive(long pid) { return aorta::testing::process_alive(static_cast<pid_t>(pid)); }

TEST(LastWill, EndsTheRunsTrainingAndReleasesItsLock) {
  aorta::testing::TempDir dir;
  cluster::LocalTransport local;
  config::Variant v;
  v.aorta_path = (dir.path() / "repo").string();
  v.container.runtime = config::RuntimeKind::kNone;
  fs::create_directories(v.aorta_path);
  config::Cluster c = config::local_cluster("tester");
  NodeExec exec{local, v, c};
  RunState state;
  state.run_id = "willrun";
  EXPECT_EQ(last_will_command(exec, state, 0), "") << "nothing started, nothing to undo";
  std::vector<std::string> notes;
  ASSERT_TRUE(acquire_workdir_locks(exec, state, notes));
  ASSERT_EQ(state.workdir_locks.size(), 1u);
  const long holder = state.workdir_locks.begin()->second;
  // A training that would outlive the test, and a process of another run beside it.
  ASSERT_TRUE(start_phase(exec, state, "benchmark", {"sleep 600"}, Rendezvous{}));
  const long training = state.phase_pids["benchmark"].begin()->second;
  auto other = local.run("localhost", "setsid sleep 600 >/dev/null 2>&1 & echo $!", std::chrono::seconds(10));
  ASSERT_TRUE(other && other->exit_code == 0);
  const long unrelated = std::stol(other->output);
  ASSERT_TRUE(alive(training) && alive(holder) && alive(unrelated));

  const std::string will = last_will_command(exec, state, 0);
  auto ran = local.run("localhost", will, std::chrono::seconds(60));
  ASSERT_TRUE(ran && ran->exit_code == 0) << will;
  // A signalled process may take a moment to go on a loaded machine (seen in CI): up to 5 s.
  for (int i = 0; i < 100 && (alive(training) || alive(holder)); ++i) usleep(50000);
  EXPECT_FALSE(alive(training)) << "the training's group is ended";
  EXPECT_FALSE(alive(holder)) << "the lock holder is ended";
  EXPECT_TRUE(alive(unrelated)) << "nothing else is touched";
  local.run("localhost", "kill " + std::to_string(unrelated), std::chrono::seconds(10));
  // The lock is free: a second run takes it.
  RunState next;
  next.run_id = "nextrun";
  EXPECT_TRUE(acquire_workdir_locks(exec, next, notes));
  release_workdir_locks(exec, next);
}

}  // namespace
}  // namespace aorta::job
