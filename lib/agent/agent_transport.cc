// The agent transport's requests, pools and lease (agent_transport.h).
#include "agent/agent_transport.h"

#include <fstream>

namespace aorta::agent {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kConnectionsPerAgent = 16;
constexpr auto kConnectTimeout = std::chrono::seconds(10);
constexpr auto kBeatEvery = std::chrono::seconds(2);
// The agent enforces a command's timeout and answers; this much longer, the client
// stops waiting for an agent that went silent.
constexpr auto kReplyGrace = std::chrono::seconds(30);

}  // namespace

struct AgentTransport::Agent {
  AgentEndpoint endpoint;
  std::mutex lease_mutex;
  std::unique_ptr<AgentConnection> lease;
  std::mutex pool_mutex;
  std::condition_variable freed;
  std::vector<std::unique_ptr<AgentConnection>> idle;
  size_t open = 0;

  Result<std::unique_ptr<AgentConnection>> acquire(const std::string& secret, const std::string& job) {
    {
      std::unique_lock lock(pool_mutex);
      freed.wait(lock, [&] { return !idle.empty() || open < kConnectionsPerAgent; });
      if (!idle.empty()) {
        auto connection = std::move(idle.back());
        idle.pop_back();
        return connection;
      }
      ++open;
    }
    auto connection = AgentConnection::open(endpoint, secret, job, Clock::now() + kConnectTimeout);
    if (!connection) release(nullptr);
    return connection;
  }
  // Back into the pool, or (null: broken or stopped mid-answer) dropped.
  void release(std::unique_ptr<AgentConnection> connection) {
    std::lock_guard lock(pool_mutex);
    if (connection) idle.push_back(std::move(connection));
    else --open;
    freed.notify_one();
  }
};

Result<std::unique_ptr<AgentTransport>> AgentTransport::connect(std::vector<AgentEndpoint> agents, std::string secret,
                                                                std::string job) {
  std::unique_ptr<AgentTransport> transport(new AgentTransport(std::move(secret), std::move(job)));
  std::string failures;
  for (auto& endpoint : agents) {
    auto agent = std::make_unique<Agent>();
    agent->endpoint = endpoint;
    const auto deadline = Clock::now() + kConnectTimeout;
    auto lease = AgentConnection::open(endpoint, transport->secret_, transport->job_, deadline);
    Result<nlohmann::json> opened = lease ? (*lease)->call(Request{.op = Op::kLease}, deadline) : lease.error();
    if (!opened) {
      failures += (failures.empty() ? "" : "; ") + opened.error().describe();
      continue;
    }
    agent->lease = std::move(*lease);
    transport->agents_[endpoint.host] = std::move(agent);
  }
  if (!failures.empty()) {
    transport->shutdown();  // the leases that did open are let go
    return Error{ErrorCode::kIo, "cannot use the node agents: " + failures, "agent"};
  }
  transport->heartbeat_ = std::thread([t = transport.get()] { t->beat_until_shutdown(); });
  return transport;
}

AgentTransport::AgentTransport(std::string secret, std::string job)
    : secret_(std::move(secret)), job_(std::move(job)) {}

AgentTransport::~AgentTransport() { shutdown(); }

void AgentTransport::beat_until_shutdown() {
  std::unique_lock lock(beat_mutex_);
  while (!beat_wake_.wait_for(lock, kBeatEvery, [&] { return stopping_; })) {
    for (auto& [host, agent] : agents_) {
      std::lock_guard lease_lock(agent->lease_mutex);
      // A lease whose beat fails is dropped: its agent has ended what it ran.
      if (agent->lease && !agent->lease->send(Request{.op = Op::kBeat}, Clock::now() + kBeatEvery))
        agent->lease.reset();
    }
  }
}

void AgentTransport::shutdown() {
  {
    std::lock_guard lock(beat_mutex_);
    if (stopping_ && !heartbeat_.joinable()) return;
    stopping_ = true;
  }
  beat_wake_.notify_all();
  if (heartbeat_.joinable()) heartbeat_.join();
  for (auto& [host, agent] : agents_) {
    std::lock_guard lease_lock(agent->lease_mutex);
    if (agent->lease) (void)agent->lease->call(Request{.op = Op::kDone}, Clock::now() + kConnectTimeout);
    agent->lease.reset();
  }
}

Result<AgentTransport::Exchanged> AgentTransport::exchange(const std::string& host, Request request,
                                                           Deadline deadline,
                                                           const std::function<bool(std::string_view)>& take) {
  auto found = agents_.find(host);
  if (found == agents_.end()) return Error{ErrorCode::kNotFound, "no agent serves this host", host};
  Agent& agent = *found->second;
  auto connection = agent.acquire(secret_, job_);
  if (!connection) return connection.error();
  auto drop = [&] { agent.release(nullptr); };
  auto broken = [&](const Error& error) -> Result<Exchanged> {
    drop();
    return error;
  };
  if (auto sent = (*connection)->send(std::move(request), deadline); !sent) return broken(sent.error());
  for (;;) {
    auto frame = (*connection)->receive(deadline);
    if (!frame) return broken(frame.error());
    if (frame->header.type == FrameType::kData) {
      if (take && take(frame->body)) continue;
      drop();
      return Exchanged{.reply = {}, .refused = true};
    }
    auto reply = decode_reply(frame->body);
    if (!reply) return broken(Error{ErrorCode::kIo, reply.error().message, host});
    agent.release(std::move(*connection));
    if (auto error = reply_error(*reply, host)) return *error;
    return Exchanged{.reply = std::move(*reply)};
  }
}

Result<cluster::CommandResult> AgentTransport::run(const std::string& host, const std::string& command,
                                                   std::chrono::seconds timeout) {
  cluster::CommandResult result;
  auto reply = exchange(host, Request{.op = Op::kRun, .command = command, .timeout_s = timeout.count()},
                        Clock::now() + timeout + kReplyGrace,
                        [&](std::string_view bytes) {
                          if (result.output.size() + bytes.size() > cluster::kCommandOutputLimit) return false;
                          result.output.append(bytes);
                          return true;
                        });
  if (!reply) return reply.error();
  if (reply->refused) return cluster::output_over_limit(host);
  result.exit_code = static_cast<int>(reply_int(reply->reply, "exit_code", -1));
  return result;
}

Result<cluster::StreamResult> AgentTransport::stream(const std::string& host, const std::string& command,
                                                     const std::filesystem::path& local_path,
                                                     std::chrono::seconds timeout, uint64_t max_bytes) {
  std::ofstream file(local_path, std::ios::binary | std::ios::trunc);
  if (!file) return Error{ErrorCode::kIo, "cannot write " + local_path.string(), host};
  cluster::StreamResult result;
  auto reply = exchange(host, Request{.op = Op::kStream, .command = command, .timeout_s = timeout.count()},
                        Clock::now() + timeout + kReplyGrace,
                        [&](std::string_view bytes) {
                          if (bytes.size() > max_bytes - result.bytes) return false;
                          file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
                          result.bytes += bytes.size();
                          return true;
                        });
  if (!reply) return reply.error();
  if (reply->refused) return cluster::copy_over_limit(host, local_path, max_bytes);
  result.exit_code = static_cast<int>(reply_int(reply->reply, "exit_code", -1));
  result.errors = reply_text(reply->reply, "errors");
  file.close();
  if (!file) return Error{ErrorCode::kIo, "writing " + local_path.string() + " failed (disk full?)", host};
  return result;
}

Status AgentTransport::download(const std::string& host, const std::string& remote_path,
                                const std::filesystem::path& local_path, uint64_t max_bytes) {
  std::ofstream file(local_path, std::ios::binary | std::ios::trunc);
  if (!file) return Error{ErrorCode::kIo, "cannot write " + local_path.string(), host};
  uint64_t copied = 0;
  // A file is read at disk speed: no command timeout, a day at most.
  auto reply = exchange(host, Request{.op = Op::kDownload, .path = remote_path}, Clock::now() + std::chrono::hours(24),
                        [&](std::string_view bytes) {
                          if (bytes.size() > max_bytes - copied) return false;
                          file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
                          copied += bytes.size();
                          return true;
                        });
  if (!reply) return reply.error();
  if (reply->refused) return cluster::copy_over_limit(host, local_path, max_bytes);
  file.close();
  if (!file) return Error{ErrorCode::kIo, "writing " + local_path.string() + " failed (disk full?)", host};
  return ok_status();
}

Status AgentTransport::set_last_will(const std::string& host, const std::string& command) {
  auto reply = exchange(host, Request{.op = Op::kWill, .command = command}, Clock::now() + kConnectTimeout, {});
  if (!reply) return reply.error();
  return ok_status();
}

Result<AgentHealth> AgentTransport::health(const std::string& host) {
  auto reply = exchange(host, Request{.op = Op::kHealth}, Clock::now() + kConnectTimeout, {});
  if (!reply) return reply.error();
  const nlohmann::json& r = reply->reply;
  return AgentHealth{reply_int(r, "pid", 0), reply_number(r, "uptime_s", 0), reply_int(r, "running", 0)};
}

}  // namespace aorta::agent
