// A client connection with deadlines (agent_connection.h): each operation runs on the
// connection's own io_context until it completes or its deadline passes, and a
// late operation closes the socket (the agent then kills what it ran for it).
#include "agent/agent_connection.h"

#include <fcntl.h>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "agent/request_mac.h"

namespace aorta::agent {
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

asio::awaitable<boost::system::error_code> connect_to(tcp::socket& socket, tcp::endpoint endpoint) {
  auto [ec] = co_await socket.async_connect(endpoint, kTuple);
  co_return ec;
}
}  // namespace

AgentConnection::AgentConnection(AgentEndpoint endpoint, std::string secret, std::string job)
    : endpoint_(std::move(endpoint)), secret_(std::move(secret)), job_(std::move(job)) {}

Error AgentConnection::failed(const std::string& what, ErrorCode code) const {
  return Error{code,
               "agent at " + endpoint_.address + ":" + std::to_string(endpoint_.port) + ": " + what, endpoint_.host};
}

template <typename T>
std::optional<T> AgentConnection::complete(asio::awaitable<T> operation, Deadline deadline) {
  std::optional<T> out;
  asio::co_spawn(io_, std::move(operation), [&out](std::exception_ptr e, T value) {
    if (!e) out = std::move(value);
  });
  io_.restart();
  io_.run_until(deadline);
  if (out) return out;
  // Too late: closing cancels the operation, which is then let finish, then dropped.
  boost::system::error_code ignored;
  socket_.close(ignored);
  io_.restart();
  io_.run();
  return std::nullopt;
}

Result<std::unique_ptr<AgentConnection>> AgentConnection::open(const AgentEndpoint& endpoint,
                                                               const std::string& secret, const std::string& job,
                                                               Deadline deadline) {
  auto connection = std::make_unique<AgentConnection>(endpoint, secret, job);
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(endpoint.address, ec);
  if (ec) return connection->failed("not an IP address");
  auto connected = connection->complete(connect_to(connection->socket_, tcp::endpoint(address, endpoint.port)),
                                        deadline);
  if (!connected) return connection->failed("no connection within the deadline");
  if (*connected)
    return connection->failed("cannot connect: " + connected->message(), *connected == asio::error::connection_refused
                                                                             ? ErrorCode::kNotFound
                                                                             : ErrorCode::kIo);
  ::fcntl(connection->socket_.native_handle(), F_SETFD, FD_CLOEXEC);
  connection->socket_.set_option(tcp::no_delay(true), ec);
  if (auto proven = connection->hello(deadline); !proven) return proven.error();
  return connection;
}

// The agent proves it knows the secret, and which agent it is, before anything is
// sent: a process on a dead agent's port, or a relay from it to another agent of the
// job, is found out here.
Status AgentConnection::hello(Deadline deadline) {
  const std::string nonce = random_nonce();
  if (auto sent = send(Request{.op = Op::kHello, .nonce = nonce}, deadline); !sent) return sent.error();
  auto frame = receive(deadline);
  if (!frame) return frame.error();
  auto answer = decode_reply(frame->body);
  if (frame->header.type != FrameType::kReply || !answer) return failed("an answer to the hello that is not a reply");
  if (answer->contains("error"))  // the agent's refusal says nothing more, by design
    return failed("refused the hello of job " + job_ + ": not an agent of this job (another job's, or not an "
                  "agent); nothing was sent to it");
  agent_nonce_ = reply_text(*answer, "nonce");
  const auto claimed = reply_identity(*answer);
  if (!claimed)
    return failed("the agent's answer names no rank and node (another process on its port, or an aorta_suite older "
                  "than this one: every node must run the same build); nothing was sent to it");
  if (nonce.empty() || agent_nonce_.size() < 32 ||
      !same_secret(reply_text(*answer, "proof"), agent_proof(secret_, job_, nonce, agent_nonce_, *claimed)))
    return failed("the agent did not prove it knows this job's secret (a stale address, or another process on its "
                  "port); nothing was sent to it");
  if (!same_agent(*claimed, endpoint_))
    return failed("answered as " + describe_agent(*claimed) + ", not as " + describe_agent(endpoint_) +
                  ": another agent of this job answers on this address (a relay on a dead agent's port?); refused, "
                  "nothing was sent to it");
  return ok_status();
}

Status AgentConnection::send(Request request, Deadline deadline) {
  request.job = job_;
  request.token = request.op == Op::kHello ? "" : request_token(secret_, agent_nonce_, sequence_++, request);
  auto written = complete(write_frame(socket_, FrameType::kRequest, encode_request(request)), deadline);
  if (!written) return failed("no answer within the deadline");
  if (!*written) return failed("the connection is closed");
  return ok_status();
}

Result<Frame> AgentConnection::receive(Deadline deadline) {
  auto frame = complete(read_frame(socket_), deadline);
  if (!frame) return failed("no answer within the deadline");
  if (frame->problem == "closed") return failed("the agent closed the connection");
  if (!frame->problem.empty()) return failed(frame->problem);
  return std::move(*frame);
}

Result<nlohmann::json> AgentConnection::call(Request request, Deadline deadline) {
  if (auto sent = send(std::move(request), deadline); !sent) return sent.error();
  auto frame = receive(deadline);
  if (!frame) return frame.error();
  if (frame->header.type != FrameType::kReply) return failed("a data frame where a reply was expected");
  auto reply = decode_reply(frame->body);
  if (!reply) return failed(reply.error().message);
  if (auto error = reply_error(*reply, endpoint_.host)) return *error;
  return std::move(*reply);
}

}  // namespace aorta::agent
