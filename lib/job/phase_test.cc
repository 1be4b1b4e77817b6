// Phases with real bash on this machine: the private script, a deleted aorta_path
// noticed at once, and the process group stopped even then (issue 14); a node out of
// contact polled until the timeout, and what it says (issue 43, 2).
#include "job/phase.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <regex>

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "job/node_contact.h"
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

// Issue 43, 2: the console's lines about a silent node, on a clock of our own: said
// once it has been silent 20 s, again every 30 s, and once when it answers again.
TEST(PhaseContact, ASilentNodeIsSaidWithHowLongAndTheTimeLeft) {
  const auto t0 = ContactClock::time_point{} + std::chrono::hours(1);
  const auto deadline = t0 + std::chrono::seconds(300);
  const std::chrono::seconds timeout{300};
  using std::chrono::seconds;
  NodeContact contact({"node1", "node2"}, "benchmark", "sshd", t0);
  const std::string refused = "cannot connect to port 22: Connection refused (is sshd running on the node?)";
  EXPECT_FALSE(contact.answered(0, t0 + seconds(10)));
  contact.silent(1, refused);
  EXPECT_TRUE(contact.lines(t0 + seconds(19), deadline, timeout).empty());
  EXPECT_EQ(contact.lines(t0 + seconds(20), deadline, timeout),
            std::vector<std::string>{"[benchmark] node2 has not answered for 0:00:20 (" + refused +
                                     "); polling on, 0:04:40 left before the 300s timeout"});
  EXPECT_TRUE(contact.lines(t0 + seconds(49), deadline, timeout).empty());
  EXPECT_EQ(contact.lines(t0 + seconds(50), deadline, timeout),
            std::vector<std::string>{"[benchmark] node2 has not answered for 0:00:50 (" + refused +
                                     "); polling on, 0:04:10 left before the 300s timeout"});
  EXPECT_EQ(contact.answered(1, t0 + seconds(65)),
            std::optional<std::string>("[benchmark] node2 answers again, after 0:01:05 without an answer"));
  EXPECT_FALSE(contact.answered(1, t0 + seconds(70)));  // said once
  // Silent again from its last answer (70 s), said 20 s later, not at once.
  contact.silent(1, "no TCP answer on port 22 within 30s: is the node up and reachable?");
  EXPECT_TRUE(contact.lines(t0 + seconds(89), deadline, timeout).empty());
  EXPECT_EQ(contact.lines(t0 + seconds(90), deadline, timeout).size(), 1u);
  EXPECT_EQ(contact.first_silent(), "node2");
}

// At the timeout the error names each node whose last poll failed, how long it has
// been silent and what to do; CVS's words stay first.
TEST(PhaseContact, TheTimeoutNamesTheSilentNode) {
  const auto t0 = ContactClock::time_point{} + std::chrono::hours(1);
  NodeContact contact({"node1", "node2"}, "benchmark", "agent", t0);
  EXPECT_EQ(contact.at_timeout(t0 + std::chrono::seconds(5)), "");
  contact.answered(1, t0 + std::chrono::seconds(100));
  contact.silent(1, "agent at 10.0.0.2:4000: no answer within the deadline");
  EXPECT_EQ(contact.at_timeout(t0 + std::chrono::seconds(3700)),
            "; node2 has not answered for 1:00:00 (last: agent at 10.0.0.2:4000: no answer within the deadline): check "
            "that the node is up and its agent answers; its benchmark processes may still be running there");
  EXPECT_EQ(contact.first_silent(), "node2");
}

// The local transport, except that one host's polls (the commands that say when the
// log is gone) fail with `error`: the first `failures` of them, or all when negative;
// `gone` is what proves_gone answers.
struct ScriptedPolls : cluster::Transport {
  cluster::LocalTransport local;
  std::string host;
  Error error;
  int failures = -1;    // how many polls fail (-1: all)
  int answer_first = 0;  // polls answered before the failures start
  bool gone = false;
  int polls = 0;
  Result<cluster::CommandResult> run(const std::string& h, const std::string& command, std::chrono::seconds t) override {
    if (h == host && command.find("CVS_AORTA_LOG_GONE") != std::string::npos && ++polls > answer_first &&
        failures != 0) {
      if (failures > 0) --failures;
      return error;
    }
    return local.run(h, command, t);
  }
  Status download(const std::string& h, const std::string& from, const fs::path& to, uint64_t max) override {
    return local.download(h, from, to, max);
  }
  bool proves_gone(const Error&) const override { return gone; }
  std::string answerer = "sshd";
  std::string node_answerer() const override { return answerer; }
  std::string name() const override { return "scripted"; }
};

// Two nodes on this machine, node "second" polled through `polls`.
struct TwoNodes : OneNode {
  ScriptedPolls polls;
  config::Cluster two = [this] {
    auto c2 = c;
    c2.nodes.push_back({"second", "", ""});
    return c2;
  }();
  NodeExec scripted{polls, v, two};
  explicit TwoNodes(Error error) {
    polls.host = "second";
    polls.error = std::move(error);
  }
};

// Polls that fail are waited through: the phase passes once the node answers again
// (before issue 43 a silence of 30 s failed the run; this one is short, the decision the same).
TEST(PhaseContact, ANodeThatStopsAnsweringIsPolledOn) {
  TwoNodes two(Error{ErrorCode::kNotFound, "cannot connect to port 22: Connection refused", "second"});
  two.polls.failures = 2;
  ASSERT_TRUE(start_phase(two.scripted, two.state, "benchmark", {"sleep 1", "sleep 1"}, Rendezvous{}));
  Status s = wait_for_phase(two.scripted, two.state, "benchmark", std::chrono::seconds(30), [](const std::string&) {});
  ASSERT_TRUE(s) << s.error().describe();
  EXPECT_GE(two.polls.polls, 3);
}

TEST(PhaseContact, ANodeSilentUntilTheTimeoutIsNamed) {
  TwoNodes two(Error{ErrorCode::kTimeout, "no TCP answer on port 22 within 30s: is the node up and reachable?", "second"});
  ASSERT_TRUE(start_phase(two.scripted, two.state, "benchmark", {"true", "true"}, Rendezvous{}));
  Status s = wait_for_phase(two.scripted, two.state, "benchmark", std::chrono::seconds(3), [](const std::string&) {});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::kTimeout);
  EXPECT_EQ(s.error().context, "second");
  EXPECT_TRUE(std::regex_match(s.error().message, std::regex("Aorta did not complete within 3s; second has not answered for 0:00:0[3-5] \\(last: "
                                      "no TCP answer on port 22 within 30s: is the node up and reachable\\?\\): check "
                                      "that the node is up and its sshd answers; its benchmark processes may still be "
                                      "running there")))
      << s.error().message;
}

// The advice names what answers on a node as the transport says it: a managed run's agent.
TEST(PhaseContact, TheTimeoutNamesWhatTheTransportSaysAnswers) {
  TwoNodes two(Error{ErrorCode::kTimeout, "agent at 10.0.0.2:4000: no answer within the deadline", "second"});
  two.polls.answerer = "agent";
  ASSERT_TRUE(start_phase(two.scripted, two.state, "benchmark", {"true", "true"}, Rendezvous{}));
  Status s = wait_for_phase(two.scripted, two.state, "benchmark", std::chrono::seconds(2), [](const std::string&) {});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("check that the node is up and its agent answers"), std::string::npos)
      << s.error().message;
}

// A refused login mid-run is polled on as any other silence (review of issue 43: an
// LDAP outage or an sshd restart during authentication refuses a login that worked).
TEST(PhaseContact, ARefusedLoginIsPolledOnLikeAnyOtherSilence) {
  TwoNodes two(Error{ErrorCode::kInvalidInput, "authentication as root with key /k failed: denied", "second"});
  two.polls.failures = 2;
  ASSERT_TRUE(start_phase(two.scripted, two.state, "benchmark", {"sleep 1", "sleep 1"}, Rendezvous{}));
  Status s = wait_for_phase(two.scripted, two.state, "benchmark", std::chrono::seconds(30), [](const std::string&) {});
  ASSERT_TRUE(s) << s.error().describe();
  EXPECT_GE(two.polls.polls, 3);
}

// A node the transport proves gone (an agent whose port refuses connections) ends the
// wait at the first poll: no later poll can mend it.
TEST(PhaseContact, AProvenEndFailsAtOnce) {
  TwoNodes two(Error{ErrorCode::kNotFound, "agent at 10.0.0.2:4000: cannot connect: Connection refused", "second"});
  two.polls.gone = true;
  ASSERT_TRUE(start_phase(two.scripted, two.state, "benchmark", {"sleep 20", "sleep 20"}, Rendezvous{}));
  auto begin = std::chrono::steady_clock::now();
  Status s = wait_for_phase(two.scripted, two.state, "benchmark", std::chrono::seconds(20), [](const std::string&) {});
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(2));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().context, "second");
  EXPECT_EQ(s.error().message, "lost contact with node second while waiting for benchmark: " + two.polls.error.message +
                                   ". No later poll can mend this; its benchmark processes may still be running there");
  EXPECT_TRUE(stop_phase(two.scripted, two.state, "benchmark"));
}

// A node that has finished is not silent when a later poll fails: the timeout names the
// node still running, not the finished one.
TEST(PhaseContact, AFinishedNodeIsNeverSilent) {
  TwoNodes two(Error{ErrorCode::kTimeout, "no TCP answer on port 22 within 30s: is the node up and reachable?", "second"});
  two.polls.answer_first = 2;
  ASSERT_TRUE(start_phase(two.scripted, two.state, "benchmark", {"sleep 20", "true"}, Rendezvous{}));
  Status s = wait_for_phase(two.scripted, two.state, "benchmark", std::chrono::seconds(3), [](const std::string&) {});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message.find("second"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().context, "second");
  EXPECT_TRUE(stop_phase(two.scripted, two.state, "benchmark"));
}

}  // namespace
}  // namespace aorta::job
