// Phases with real bash on this machine: the private script, a deleted aorta_path
// noticed at once, and the process group stopped even then (issue 14).
#include "job/phase.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

namespace fs = std::filesystem;

config::Variant variant_at(const fs::path& repo) {
  config::Variant v;
  v.aorta_path = repo.string();
  v.container.runtime = config::RuntimeKind::kNone;
  v.container.env = {{"HF_TOKEN", "secret-token"}};
  return v;
}

bool alive(long pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

fs::perms mode_of(const fs::path& p) { return fs::status(p).permissions() & fs::perms::all; }

// This machine as one node, with the repository folder made and run id "abc".
struct OneNode {
  aorta::testing::TempDir dir;
  cluster::LocalTransport local;
  config::Variant v = variant_at(dir.path() / "repo");
  config::Cluster c = config::local_cluster("tester");
  NodeExec exec{local, v, c};
  RunState state;
  OneNode() {
    fs::create_directories(v.aorta_path);
    state.run_id = "abc";
  }
};

TEST(Phase, ScriptWithTokensIsPrivate) {
  OneNode one;
  auto& v = one.v;
  auto& exec = one.exec;
  auto& state = one.state;
  ASSERT_TRUE(start_phase(exec, state, "benchmark", {"true"}, Rendezvous{}));
  ASSERT_TRUE(wait_for_phase(exec, state, "benchmark", std::chrono::seconds(30), [](const std::string&) {}));
  fs::path node = node_work_dir(v, "abc", 0);
  EXPECT_EQ(mode_of(node / "benchmark.sh"), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(mode_of(node), fs::perms::owner_all);
  EXPECT_EQ(mode_of(node.parent_path()), fs::perms::owner_all);
  std::ifstream script(node / "benchmark.sh");
  EXPECT_NE(std::string(std::istreambuf_iterator<char>(script), {}).find("secret-token"), std::string::npos);
}

// Issue 16: node 0's output reaches head_output line by line while the phase runs,
// across polls, whatever it prints (the poll's own separator and exit marker too), and
// a last line without its newline is not lost.
TEST(Phase, HeadOutputStreamsNodeZerosLogLineByLine) {
  OneNode one;
  auto& exec = one.exec;
  auto& state = one.state;
  const std::string command =
      "echo 'step 1'; sleep 1.5; printf '\\nCVS_AORTA_SUITE_OUTPUT_END\\nCVS_AORTA_EXIT=7\\n'; sleep 1.5; "
      "echo 'step 2 $(x)'; printf 'no newline'";
  ASSERT_TRUE(start_phase(exec, state, "benchmark", {command}, Rendezvous{}));
  std::vector<std::string> lines;
  std::vector<std::chrono::steady_clock::time_point> arrived;
  Status s = wait_for_phase(exec, state, "benchmark", std::chrono::seconds(30), [](const std::string&) {},
                            [&](const std::string& line) {
                              lines.push_back(line);
                              arrived.push_back(std::chrono::steady_clock::now());
                            });
  ASSERT_TRUE(s) << s.error().message;  // the printed CVS_AORTA_EXIT=7 is output, the real exit is 0
  auto from_step = std::find(lines.begin(), lines.end(), "step 1");
  ASSERT_NE(from_step, lines.end()) << ::testing::PrintToString(lines);
  // The wrapper's own exit marker ends the log, on a line of its own.
  EXPECT_EQ(std::vector<std::string>(from_step, lines.end()),
            (std::vector<std::string>{"step 1", "", "CVS_AORTA_SUITE_OUTPUT_END", "CVS_AORTA_EXIT=7", "step 2 $(x)",
                                      "no newline", "CVS_AORTA_EXIT=0"}));
  // Streamed, not read at the end: step 1 came polls before step 2 (3 s apart in the run).
  const auto first = arrived[from_step - lines.begin()], second = arrived[from_step - lines.begin() + 4];
  EXPECT_GE(second - first, std::chrono::seconds(1));
}

// Issue 29, 5: a training that prints the wrapper's marker, CVS_AORTA_EXIT=0, and
// exits 3 later fails: the status comes from the exit file only the wrapper writes.
TEST(Phase, PrintedExitMarkerProvesNothing) {
  OneNode one;
  ASSERT_TRUE(start_phase(one.exec, one.state, "benchmark", {"printf 'CVS_AORTA_EXIT=0\\n'; sleep 2; exit 3"}, Rendezvous{}));
  Status s = wait_for_phase(one.exec, one.state, "benchmark", std::chrono::seconds(30), [](const std::string&) {});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "Aorta command failed on nodes: {localhost: 3}");
}

// Issue 29, 4: a progress bar's one long line (\r updates, 20 MiB here) neither slows
// the poll (only new bytes are read) nor reaches the stage log or the console whole.
TEST(Phase, ALongLineIsCutAndThePollStaysCheap) {
  OneNode one;
  const std::string command =
      "head -c 20971520 /dev/zero | tr '\\0' '\\r'; printf '\\n\\x1b]0;title\\x07\\n'; echo done; exit 0";
  ASSERT_TRUE(start_phase(one.exec, one.state, "benchmark", {command}, Rendezvous{}));
  std::vector<std::string> lines;
  Status s = wait_for_phase(one.exec, one.state, "benchmark", std::chrono::seconds(60), [](const std::string&) {},
                            [&](const std::string& line) { lines.push_back(line); });
  ASSERT_TRUE(s) << s.error().message;
  size_t longest = 0;
  for (const auto& l : lines) longest = std::max(longest, l.size());
  EXPECT_LE(longest, 4 * 16384u + 64);  // escaped \r is 4 bytes a byte
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines[0].find("[line cut: longer than 16384 bytes]"), std::string::npos) << lines[0].substr(0, 80);
  EXPECT_NE(std::find(lines.begin(), lines.end(), "done"), lines.end()) << lines.size() << " lines";
  EXPECT_NE(std::find(lines.begin(), lines.end(), "\\x1b]0;title\\x07"), lines.end()) << lines.size() << " lines";
  auto tails = phase_log_tails(one.exec, one.state, "benchmark", 40);
  for (const auto& t : tails) {
    EXPECT_LE(t.size(), 4 * 2000u + 64) << t.substr(0, 100);
    EXPECT_EQ(t.find('\x1b'), std::string::npos);  // the title escape is shown, not sent
  }
}

// Audit J12: the poll ends only when every node has its exit code, and a node that
// failed is reported once, however many polls still see it. Two nodes on this
// machine: node 1 fails at once, node 0 ends 2.5 s later (polls at about 0, 1, 3 s).
TEST(Phase, PollWaitsForEveryNodeAndWarnsOncePerFailedNode) {
  OneNode one;
  one.c.nodes.push_back({"second", "", ""});
  NodeExec exec(one.local, one.v, one.c);
  // From before the launch: a slow start (the sanitizer build) may take most of the
  // 2.5 s before the wait begins, but the wait can only end after node 0's sleep.
  auto begin = std::chrono::steady_clock::now();
  ASSERT_TRUE(start_phase(exec, one.state, "benchmark", {"sleep 2.5", "exit 3"}, Rendezvous{}));
  std::vector<std::string> progress;
  Status s = wait_for_phase(exec, one.state, "benchmark", std::chrono::seconds(30),
                            [&](const std::string& line) { progress.push_back(line); });
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "Aorta command failed on nodes: {second: 3}");
  EXPECT_GE(waited, 2.5);  // node 0 was waited for
  const std::string warning = "[benchmark] second exited with 3; waiting for the remaining nodes";
  EXPECT_EQ(std::count(progress.begin(), progress.end(), warning), 1) << ::testing::PrintToString(progress);
  EXPECT_NE(progress.back().find("[benchmark] 2/2 nodes done"), std::string::npos) << progress.back();
}

TEST(Phase, CommandCountThatIsNotOnePerNodeStartsNothing) {
  aorta::testing::TempDir dir;
  cluster::LocalTransport local;
  config::Variant v = variant_at(dir.path() / "repo");
  config::Cluster c = config::local_cluster("tester");
  c.nodes.push_back({"second", "", ""});
  NodeExec exec(local, v, c);
  RunState state;
  state.run_id = "abc";
  Status s = start_phase(exec, state, "benchmark", {"true"}, Rendezvous{});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message, "benchmark: 1 launch command(s) for 2 node(s); nothing was started");
  EXPECT_TRUE(state.launched_phases.empty());
  EXPECT_FALSE(fs::exists(dir.path() / "repo"));
}

TEST(Phase, DeletedAortaPathFailsWithinSecondsNamingTheNode) {
  OneNode one;
  auto& v = one.v;
  auto& exec = one.exec;
  auto& state = one.state;
  ASSERT_TRUE(start_phase(exec, state, "benchmark", {"sleep 300"}, Rendezvous{}));
  ASSERT_EQ(state.phase_pids["benchmark"].count("localhost"), 1u);
  long pid = state.phase_pids["benchmark"]["localhost"];
  EXPECT_TRUE(alive(pid));
  fs::remove_all(v.aorta_path);
  auto begin = std::chrono::steady_clock::now();
  // Before the fix a missing log counted as "still running" until the timeout.
  Status s = wait_for_phase(exec, state, "benchmark", std::chrono::seconds(20), [](const std::string&) {});
  double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  ASSERT_FALSE(s);
  EXPECT_LT(waited, 5.0);
  EXPECT_EQ(s.error().context, "localhost");
  EXPECT_NE(s.error().message.find("the benchmark log on node localhost is gone (" + v.aorta_path +
                                   "/.cvs-aorta/abc/node_0/benchmark.log): aorta_path " + v.aorta_path +
                                   " was deleted or moved during the run"),
            std::string::npos)
      << s.error().message;
  // The pid file went with the folder; the pid the start printed still stops it.
  ASSERT_TRUE(stop_phase(exec, state, "benchmark"));
  for (int i = 0; i < 50 && alive(pid); ++i) usleep(20000);
  EXPECT_FALSE(alive(pid));
}

}  // namespace
}  // namespace aorta::job
