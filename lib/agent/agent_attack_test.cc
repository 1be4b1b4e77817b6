// Issue 30 item 3, each attack as a test against a real agent: a wrong token, a
// connection from another job, a second rank 0, a huge frame, a slow client, a
// socket closed mid-stream, and rank 0 killed (the agent ends, nothing left, the will ran).
#include <sys/wait.h>

#include <gtest/gtest.h>

#include "agent/agent_transport.h"
#include "agent/protocol.h"
#include "tests/agent_fixture.h"

namespace aorta::agent {
namespace {

using aorta::testing::kAgentJob;
using aorta::testing::kAgentSecret;
using aorta::testing::RunningAgent;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(AgentAttack, AnAgentWithoutTheSecretIsFoundOutBeforeAnythingIsSent) {
  aorta::testing::TempDir dir;
  RunningAgent agent(aorta::testing::agent_options(dir.path()));
  std::string wrong = kAgentSecret;
  wrong.back() = 't';  // differs in the last byte only
  auto r = AgentTransport::connect({agent.endpoint()}, wrong, kAgentJob);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("the agent did not prove it knows this job's secret"), std::string::npos)
      << r.error().message;
}

// Rank 0 is told its hello was refused, naming the node and the job it asked for; the
// other job's client learns nothing of the agent's job (issue 42, probe 01).
TEST(AgentAttack, ConnectionFromAnotherJobIsRefusedAndLearnsNothing) {
  aorta::testing::TempDir dir;
  RunningAgent agent(aorta::testing::agent_options(dir.path()));
  // The other job's rank 0 replays its own (valid for it) hello at this agent.
  auto r = AgentTransport::connect({agent.endpoint()}, kAgentSecret, "777.0");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("node1: agent at 127.0.0.1:"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(": refused the hello of job 777.0: not an agent of this job"), std::string::npos)
      << r.error().message;
  // What the agent sent back, byte for byte: a refusal and nothing more.
  const int fd = aorta::testing::raw_connect(agent.server->port());
  const std::string hello = encode_request({.op = Op::kHello, .job = "777.0", .nonce = std::string(32, 'a')});
  const auto header = encode_header({FrameType::kRequest, static_cast<uint32_t>(hello.size())});
  const std::string frame = std::string(header.data(), header.size()) + hello;
  ASSERT_EQ(::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL), static_cast<ssize_t>(frame.size()));
  char answer[512] = {};
  const ssize_t n = ::recv(fd, answer, sizeof answer, MSG_WAITALL);  // until the agent closes
  ::close(fd);
  ASSERT_GT(n, 8);
  EXPECT_EQ(std::string(answer + 8, static_cast<size_t>(n) - 8), R"({"error":"invalid_input","message":"refused"})");
}

// Probe 14 (issue 42): rank 1's agent is gone and a relay on its address forwards to
// another agent of the job, which knows the secret. Its proof names who it is, so
// rank 0 refuses it before sending anything, naming both. Each part of the identity
// (node, rank, address, port) counts on its own.
TEST(AgentAttack, AnotherAgentOfTheJobAnsweringForThisOneIsRefused) {
  aorta::testing::TempDir dir;
  auto options = aorta::testing::agent_options(dir.path());
  options.host = "node2";
  options.rank = 2;
  RunningAgent other(options);
  const uint16_t port = other.server->port();
  aorta::testing::Relay on_a_dead_agents_port(port);
  const uint16_t relayed = on_a_dead_agents_port.port;
  auto r = AgentTransport::connect({{"node1", "127.0.0.1", relayed, 1}}, kAgentSecret, kAgentJob);
  ASSERT_FALSE(r.ok());
  const std::string both = "node1: agent at 127.0.0.1:" + std::to_string(relayed) + ": answered as rank 2 on node2 " +
                           "(127.0.0.1:" + std::to_string(port) + "), not as rank 1 on node1 (127.0.0.1:" +
                           std::to_string(relayed) + "): another agent of this job answers on this address";
  EXPECT_NE(r.error().message.find(both), std::string::npos) << r.error().message;
  // The same port on another address: only the address differs.
  aorta::testing::Relay same_port_elsewhere(port, "127.0.0.2", port);
  const std::vector<AgentEndpoint> one_part_differs = {
      {"node1", "127.0.0.1", port, 2}, {"node2", "127.0.0.1", port, 1},
      {"node2", "127.0.0.1", relayed, 2}, {"node2", "127.0.0.2", port, 2}};
  for (const AgentEndpoint& expected : one_part_differs) {
    auto refused = AgentConnection::open(expected, kAgentSecret, kAgentJob, Clock::now() + seconds(5));
    ASSERT_FALSE(refused.ok()) << describe_agent(expected);
    EXPECT_NE(refused.error().message.find("answered as rank 2 on node2 (127.0.0.1:" + std::to_string(port) + ")"),
              std::string::npos) << refused.error().message;
  }
  EXPECT_TRUE(AgentConnection::open(other.endpoint(), kAgentSecret, kAgentJob, Clock::now() + seconds(5)).ok());
}

TEST(AgentAttack, SecondRankZeroIsRefused) {
  aorta::testing::TempDir dir;
  RunningAgent agent(aorta::testing::agent_options(dir.path()));
  auto first = AgentTransport::connect({agent.endpoint()}, kAgentSecret, kAgentJob);
  ASSERT_TRUE(first.ok()) << first.error().describe();
  auto second = AgentTransport::connect({agent.endpoint()}, kAgentSecret, kAgentJob);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("another rank 0 holds this agent's lease"), std::string::npos);
}

TEST(AgentAttack, HugeFrameClosesTheConnectionWithoutWaitingForItsBody) {
  aorta::testing::TempDir dir;
  RunningAgent agent(aorta::testing::agent_options(dir.path()));  // hello_timeout 5 s
  const int fd = aorta::testing::raw_connect(agent.server->port());
  ASSERT_GE(fd, 0);
  const auto header = encode_header({FrameType::kRequest, 0xfffffff0u});
  ASSERT_EQ(::send(fd, header.data(), header.size(), MSG_NOSIGNAL), static_cast<ssize_t>(header.size()));
  // Refused on the header: an agent that allocated and waited for 4 GiB would hold
  // the connection until the hello timeout.
  EXPECT_TRUE(aorta::testing::closed_within(fd, milliseconds(1500)));
  ::close(fd);
  auto ok = AgentTransport::connect({agent.endpoint()}, kAgentSecret, kAgentJob);
  EXPECT_TRUE(ok.ok());  // and the agent serves on
}

TEST(AgentAttack, SlowClientIsDroppedAndBlocksNoOne) {
  aorta::testing::TempDir dir;
  auto options = aorta::testing::agent_options(dir.path());
  options.hello_timeout = milliseconds(1000);
  RunningAgent agent(options);
  const int slow = aorta::testing::raw_connect(agent.server->port());
  ASSERT_GE(slow, 0);
  ASSERT_EQ(::send(slow, "\x01\0\0", 3, MSG_NOSIGNAL), 3);  // half a header, then nothing
  auto start = std::chrono::steady_clock::now();
  auto transport = AgentTransport::connect({agent.endpoint()}, kAgentSecret, kAgentJob);
  ASSERT_TRUE(transport.ok()) << transport.error().describe();
  auto r = (*transport)->run("node1", "echo served", seconds(5));
  ASSERT_TRUE(r.ok()) << r.error().describe();
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(800));  // served while the slow one waits
  EXPECT_TRUE(aorta::testing::closed_within(slow, milliseconds(3000)));
  ::close(slow);
}

TEST(AgentAttack, SocketClosedMidStreamKillsTheGroupAndTheAgentServesOn) {
  aorta::testing::TempDir dir;
  RunningAgent agent(aorta::testing::agent_options(dir.path()));
  auto transport = AgentTransport::connect({agent.endpoint()}, kAgentSecret, kAgentJob);
  ASSERT_TRUE(transport.ok()) << transport.error().describe();
  const auto pid_file = dir.path() / "sleep.pid";
  // The client stops reading past max_bytes and closes; `yes` never ends by itself.
  auto r = (*transport)->stream("node1", "sleep 300 & echo $! > " + pid_file.string() + "; yes", dir.path() / "out",
                                seconds(120), 1 << 20);
  ASSERT_FALSE(r.ok());
  const pid_t sleeper = aorta::testing::wait_for_pid(pid_file);
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(aorta::testing::gone_within(sleeper, milliseconds(3000)));
  auto health = (*transport)->health("node1");
  ASSERT_TRUE(health.ok()) << health.error().describe();
  EXPECT_EQ(health->running, 0);
}

// Rank 0 as a process of its own, killed with SIGKILL while its command runs.
TEST(AgentAttack, RankZeroKilledEndsTheAgentKillsItsCommandsAndRunsTheWill) {
  aorta::testing::TempDir dir;
  auto started = AgentServer::start(aorta::testing::agent_options(dir.path()));
  ASSERT_TRUE(started.ok());
  const auto pid_file = dir.path() / "sleep.pid";
  const auto will_file = dir.path() / "will-ran";
  const AgentEndpoint endpoint{"node1", "127.0.0.1", (*started)->port()};
  const pid_t rank0 = ::fork();  // before the agent's thread: the child has only this one
  ASSERT_GE(rank0, 0);
  if (rank0 == 0) {
    auto t = AgentTransport::connect({endpoint}, kAgentSecret, kAgentJob);
    if (t && (*t)->set_last_will("node1", "touch " + will_file.string()))
      (void)(*t)->run("node1", "sleep 300 & echo $! > " + pid_file.string() + "; wait", seconds(600));
    ::_exit(1);
  }
  auto code = std::async(std::launch::async, [s = started->get()] { return s->serve(); });
  const pid_t sleeper = aorta::testing::wait_for_pid(pid_file);
  ::kill(rank0, SIGKILL);
  ::waitpid(rank0, nullptr, 0);
  ASSERT_GT(sleeper, 0);
  ASSERT_EQ(code.wait_for(seconds(15)), std::future_status::ready);
  EXPECT_EQ(code.get(), kLeaseLost);
  EXPECT_TRUE(aorta::testing::gone_within(sleeper, milliseconds(3000)));
  EXPECT_TRUE(std::filesystem::exists(will_file));
}

TEST(AgentAttack, SilentLeaseIsLost) {
  aorta::testing::TempDir dir;
  auto options = aorta::testing::agent_options(dir.path());
  options.lease_grace = seconds(1);
  RunningAgent agent(options);
  const auto deadline = std::chrono::steady_clock::now() + seconds(5);
  auto connection = AgentConnection::open(agent.endpoint(), kAgentSecret, kAgentJob, deadline);
  ASSERT_TRUE(connection.ok()) << connection.error().describe();
  ASSERT_TRUE((*connection)->call(Request{.op = Op::kLease}, deadline).ok());
  EXPECT_EQ(agent.code(seconds(5)), kLeaseLost);  // open, but no beat
}

TEST(AgentAttack, NoRankZeroAtAllEndsTheAgent) {
  aorta::testing::TempDir dir;
  auto options = aorta::testing::agent_options(dir.path());
  options.first_contact = seconds(1);
  RunningAgent agent(options);
  EXPECT_EQ(agent.code(seconds(5)), kNoFirstContact);
}

}  // namespace
}  // namespace aorta::agent
