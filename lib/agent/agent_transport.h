// A cluster::Transport over node agents (issue 30): the stages run on it as on SSH or
// local, not knowing which. One lease connection per agent, beaten every few
// seconds from a background thread, and a small pool of request connections per
// agent (one per request in flight, reused when idle).
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "agent/agent_connection.h"
#include "cluster/transport.h"

namespace aorta::agent {

struct AgentHealth {
  int64_t pid = 0;
  double uptime_s = 0;
  int64_t running = 0;  // commands running now
};

class AgentTransport final : public cluster::Transport {
 public:
  // Connects to every agent and opens its lease; an error names each host that
  // could not be reached, refused the secret, serves another job or has a rank 0.
  static Result<std::unique_ptr<AgentTransport>> connect(std::vector<AgentEndpoint> agents, std::string secret,
                                                         std::string job);
  ~AgentTransport() override;  // shutdown() if not yet done

  Result<cluster::CommandResult> run(const std::string& host, const std::string& command,
                                     std::chrono::seconds timeout) override;
  Result<cluster::StreamResult> stream(const std::string& host, const std::string& command,
                                       const std::filesystem::path& local_path, std::chrono::seconds timeout,
                                       uint64_t max_bytes) override;
  Status download(const std::string& host, const std::string& remote_path, const std::filesystem::path& local_path,
                  uint64_t max_bytes) override;
  std::string name() const override { return "agent"; }
  std::string node_answerer() const override { return "agent"; }
  // "If rank 0 is lost, run this on that host"; replaces the host's earlier will.
  Status set_last_will(const std::string& host, const std::string& command) override;
  // A command's error proves the node gone when its agent's port refuses connections
  // (kNotFound: the agent ended, and is never restarted within a run) or no agent
  // serves the host; a silent agent proves nothing.
  bool proves_gone(const Error& error) const override { return error.code == ErrorCode::kNotFound; }
  Result<AgentHealth> health(const std::string& host);
  // Every agent told the run is done: each ends what it started (no will) and its
  // serve() returns 0. Later requests fail.
  void shutdown();

  struct Agent;

 private:
  AgentTransport(std::string secret, std::string job);
  // How an exchange ended: the agent's reply, or `take` refused a data frame.
  struct Exchanged {
    nlohmann::json reply;
    bool refused = false;  // the connection was dropped (the agent kills the command)
  };
  // The request, each data frame handed to `take` until the reply.
  Result<Exchanged> exchange(const std::string& host, Request request, Deadline deadline,
                             const std::function<bool(std::string_view)>& take);
  void beat_until_shutdown();

  std::string secret_;
  std::string job_;
  std::map<std::string, std::unique_ptr<Agent>> agents_;
  std::mutex beat_mutex_;
  std::condition_variable beat_wake_;
  bool stopping_ = false;
  std::thread heartbeat_;
};

}  // namespace aorta::agent
