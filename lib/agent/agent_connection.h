// One client connection to an agent, used by one thread at a time: a request, the
// data frames it answers with, its reply, each bounded by a deadline (the agent may
// be gone without a word). Connecting says hello and checks the agent's proof of the
// secret and of who it is (request_mac.h), so another job's agent, a stranger on its
// port or another agent of this job relayed to it is named at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <nlohmann/json.hpp>

#include "agent/frame_io.h"
#include "common/result.h"

namespace aorta::agent {

using Deadline = std::chrono::steady_clock::time_point;

class AgentConnection {
 public:
  static Result<std::unique_ptr<AgentConnection>> open(const AgentEndpoint& endpoint, const std::string& secret,
                                                       const std::string& job, Deadline deadline);
  AgentConnection(AgentEndpoint endpoint, std::string secret, std::string job);
  // The request (token and job filled in) written; an error names the host.
  Status send(Request request, Deadline deadline);
  // The next frame; an error when the agent closed, sent a bad frame or the deadline passed.
  Result<Frame> receive(Deadline deadline);
  // send, then the reply; a reply with "error" becomes that Error.
  Result<nlohmann::json> call(Request request, Deadline deadline);
  const std::string& host() const { return endpoint_.host; }

 private:
  template <typename T>
  std::optional<T> complete(boost::asio::awaitable<T> operation, Deadline deadline);
  // kIo, or kNotFound where nothing listens on the agent's port: the agent has ended
  // (it is never restarted within a run), which AgentTransport::proves_gone reads.
  Error failed(const std::string& what, ErrorCode code = ErrorCode::kIo) const;
  // Says hello and checks the agent's answer; an error names what was wrong with it.
  Status hello(Deadline deadline);

  AgentEndpoint endpoint_;
  std::string secret_;
  std::string job_;
  std::string agent_nonce_;  // from the agent's answer to the hello
  uint64_t sequence_ = 0;    // of the next request on this connection
  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_{io_};
};

}  // namespace aorta::agent
