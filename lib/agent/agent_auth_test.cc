// The secret never travels: each connection's hello is answered with the agent's
// nonce and its proof of the secret, and each request carries the MAC of that nonce,
// its number and its fields. Tried here by hand on raw sockets, as an eavesdropper or
// an old client would.
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "agent/agent_transport.h"
#include "agent/protocol.h"
#include "agent/request_mac.h"
#include "tests/agent_fixture.h"

namespace aorta::agent {
namespace {

using aorta::testing::kAgentJob;
using aorta::testing::kAgentSecret;
using aorta::testing::RunningAgent;

void send_request(int fd, const Request& request) {
  const std::string body = encode_request(request);
  const auto header = encode_header({FrameType::kRequest, static_cast<uint32_t>(body.size())});
  const std::string frame = std::string(header.data(), header.size()) + body;
  ASSERT_EQ(::send(fd, frame.data(), frame.size(), MSG_NOSIGNAL), static_cast<ssize_t>(frame.size()));
}

// The next reply's JSON (empty when the agent closed first).
nlohmann::json reply(int fd) {
  std::array<char, kHeaderSize> header{};
  if (::recv(fd, header.data(), header.size(), MSG_WAITALL) != static_cast<ssize_t>(header.size())) return {};
  auto decoded = decode_header(header);
  if (!decoded) return {};
  std::string body(decoded->length, '\0');
  if (::recv(fd, body.data(), body.size(), MSG_WAITALL) != static_cast<ssize_t>(body.size())) return {};
  auto json = decode_reply(body);
  return json ? *json : nlohmann::json{};
}

// A raw connection that said hello; its agent nonce.
std::string hello(int fd, const std::string& client_nonce) {
  send_request(fd, {.op = Op::kHello, .job = kAgentJob, .nonce = client_nonce});
  const auto answer = reply(fd);
  EXPECT_EQ(answer.value("proof", ""), agent_proof(kAgentSecret, kAgentJob, client_nonce, answer.value("nonce", "")));
  return answer.value("nonce", "");
}

TEST(AgentAuth, TheAgentProvesTheSecretAndNeverSeesIt) {
  aorta::testing::TempDir dir;
  RunningAgent agent(aorta::testing::agent_options(dir.path()));
  const int a = aorta::testing::raw_connect(agent.server->port());
  const int b = aorta::testing::raw_connect(agent.server->port());
  const std::string nonce_a = hello(a, random_nonce());
  const std::string nonce_b = hello(b, random_nonce());
  EXPECT_EQ(nonce_a.size(), 32u);
  EXPECT_NE(nonce_a, nonce_b) << "a fresh nonce per connection";
  // A request MAC'd for connection a: valid there.
  Request health{.op = Op::kHealth, .job = kAgentJob};
  health.token = request_token(kAgentSecret, nonce_a, 0, health);
  send_request(a, health);
  EXPECT_TRUE(reply(a).contains("pid"));
  // The same bytes replayed on connection b are refused, and so is the secret itself.
  Request old_client{.op = Op::kHealth, .token = kAgentSecret, .job = kAgentJob};
  for (const Request& r : {health, old_client}) {
    const int c = aorta::testing::raw_connect(agent.server->port());
    hello(c, random_nonce());
    send_request(c, r);
    EXPECT_EQ(reply(c).value("message", ""), "the agent refused the secret");
    EXPECT_TRUE(aorta::testing::closed_within(c, std::chrono::milliseconds(2000)));
    ::close(c);
  }
  // Replayed on its own connection, out of turn (request 0 again): refused too.
  send_request(a, health);
  EXPECT_EQ(reply(a).value("message", ""), "the agent refused the secret");
  ::close(a);
  ::close(b);
}

TEST(AgentAuth, ARequestBeforeTheHelloClosesTheConnection) {
  aorta::testing::TempDir dir;
  RunningAgent agent(aorta::testing::agent_options(dir.path()));
  const int fd = aorta::testing::raw_connect(agent.server->port());
  send_request(fd, {.op = Op::kRun, .token = kAgentSecret, .job = kAgentJob, .command = "true", .timeout_s = 5});
  EXPECT_TRUE(aorta::testing::closed_within(fd, std::chrono::milliseconds(2000)));
  ::close(fd);
}

// Strangers holding every slot with silent connections (more than the agent's 64)
// cannot keep rank 0 out: the oldest connection still waiting for its hello makes way
// (found by the attack review).
TEST(AgentAuth, SilentStrangersCannotCrowdRankZeroOut) {
  aorta::testing::TempDir dir;
  auto options = aorta::testing::agent_options(dir.path());
  options.hello_timeout = std::chrono::seconds(30);  // they would hold their slots for the whole test
  RunningAgent agent(options);
  std::vector<int> strangers;
  for (int i = 0; i < 80; ++i) strangers.push_back(aorta::testing::raw_connect(agent.server->port()));
  auto transport = AgentTransport::connect({agent.endpoint()}, kAgentSecret, kAgentJob);
  ASSERT_TRUE(transport.ok()) << transport.error().describe();
  auto ran = (*transport)->run("node1", "echo in", std::chrono::seconds(10));
  ASSERT_TRUE(ran.ok()) << ran.error().describe();
  EXPECT_EQ(ran->output, "in\n");
  for (int fd : strangers) ::close(fd);
}

}  // namespace
}  // namespace aorta::agent
