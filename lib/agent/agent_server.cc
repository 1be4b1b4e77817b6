// The agent's connections: accept (connection_gate.h says who makes way), the hello
// and a first request proving the secret within hello_timeout (the hello answered
// with the agent's proof of the secret and of who it is), every request's MAC and job
// checked, the requests dispatched, and the lease whose loss ends the agent
// (agent_server.h). Everything runs as coroutines on one
// thread; commands are in agent_commands.cc.
#include "agent/agent_server.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <iostream>
#include <optional>
#include <thread>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "agent/agent_commands.h"
#include "agent/connection_gate.h"
#include "agent/frame_io.h"
#include "agent/request_mac.h"
#include "common/utf8.h"

namespace aorta::agent {
namespace asio = boost::asio;
using asio::awaitable;
using asio::ip::tcp;
using namespace asio::experimental::awaitable_operators;

namespace {
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
// Refusals and drops shown per minute; the rest are counted, so a flood cannot fill
// the job's output.
constexpr int kRefusalLinesPerMinute = 20;
constexpr auto kWillTimeout = std::chrono::seconds(60);

awaitable<void> sleep_for(std::chrono::steady_clock::duration duration) {
  asio::steady_timer timer(co_await asio::this_coro::executor, duration);
  co_await timer.async_wait(kTuple);
}

// The next frame, or none when `until` passes first.
awaitable<std::optional<Frame>> read_until(tcp::socket& socket, std::chrono::steady_clock::time_point until) {
  auto next = co_await (read_frame(socket) || sleep_for(until - std::chrono::steady_clock::now()));
  if (next.index() == 1) co_return std::nullopt;
  co_return std::move(std::get<0>(next));
}
}  // namespace

// Declared before the io_context: the coroutines it destroys unregister from `running`.
// One connection's authentication: the agent's nonce and the next request's number.
struct Session {
  std::string nonce;
  uint64_t next = 0;
};

struct AgentServer::State {
  AgentOptions options;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  RunningSet running;
  AgentEndpoint me;  // who this agent is: its proof binds it
  std::string will;
  ConnectionGate gate;
  std::chrono::steady_clock::time_point refusal_minute{};
  int refusal_lines = 0;
  bool lease_taken = false;
  std::optional<int> exit_code;
  asio::io_context io;
  tcp::acceptor acceptor{io};
  asio::steady_timer first_contact{io};

  // A refusal or drop, at most kRefusalLinesPerMinute a minute.
  void log_refusal(const std::string& line) {
    const auto now = std::chrono::steady_clock::now();
    if (now - refusal_minute >= std::chrono::minutes(1)) {
      if (refusal_lines > kRefusalLinesPerMinute)
        log(std::to_string(refusal_lines - kRefusalLinesPerMinute) + " more refusals in the last minute not shown");
      refusal_minute = now;
      refusal_lines = 0;
    }
    if (++refusal_lines <= kRefusalLinesPerMinute) log(line);
  }
  // Shown as every node text is (a client's job name or op cannot forge a log line).
  void log(const std::string& line) const {
    std::cerr << "aorta agent (job " << options.job << "): " << printable(line) << "\n";
  }
  void end(int code, const std::string& reason) {
    if (exit_code) return;
    exit_code = code;
    if (code != 0) log(reason);  // done is the normal end: quiet
    io.stop();
  }
  // Whether a frame read is a request; if not, the reason logged (the connection then closes).
  bool is_request(const Frame& frame, const std::string& from) {
    if (frame.problem.empty() && frame.header.type == FrameType::kRequest) return true;
    if (frame.problem != "closed")
      log_refusal("closed the connection from " + from + ": " +
                  (frame.problem.empty() ? "a frame that is not a request" : frame.problem));
    return false;
  }
  // An error reply for a request that is not this job's rank 0's, or none. The token
  // must be the MAC of this connection's next request (request_mac.h).
  std::optional<nlohmann::json> refusal(const Request& request, Session& session) const {
    const bool token_ok =  // always compared, in full
        same_secret(request.token, request_token(options.secret, session.nonce, session.next++, request));
    if (request.job != options.job) return error_reply(ErrorCode::kInvalidInput, "a request of another job: refused");
    if (!token_ok) return error_reply(ErrorCode::kInvalidInput, "the agent refused the secret");
    return std::nullopt;
  }
  // The answer to this job's hello: the agent's nonce, who it is, and its proof.
  nlohmann::json hello_answer(const std::string& client_nonce, const std::string& agent_nonce) const {
    nlohmann::json answer;
    answer["nonce"] = agent_nonce;
    answer["proof"] = agent_proof(options.secret, options.job, client_nonce, agent_nonce, me);
    put_identity(answer, me);
    return answer;
  }
  nlohmann::json health() const {
    const auto uptime = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return {{"pid", ::getpid()}, {"uptime_s", uptime}, {"running", running.size()}};
  }
  awaitable<void> accept_loop();
  awaitable<void> serve_connection(tcp::socket socket, std::string peer, std::string from);
  awaitable<bool> answer_hello(tcp::socket& socket, const Frame& frame, Session& session, const std::string& from);
  awaitable<bool> dispatch(tcp::socket& socket, const Request& request, Session& session);
  awaitable<void> hold_lease(tcp::socket& socket, Session& session);
  void run_will();
};

awaitable<void> AgentServer::State::accept_loop() {
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(kTuple);
    if (ec == asio::error::operation_aborted) co_return;
    if (ec) {
      log("accept failed: " + ec.message());
      co_await sleep_for(std::chrono::milliseconds(100));  // EMFILE and the like: no busy loop
      continue;
    }
    const auto peer = socket.remote_endpoint(ec);
    if (ec) continue;  // gone already
    const std::string peer_address = peer.address().to_string();
    const std::string from = peer_address + ":" + std::to_string(peer.port());
    if (!gate.make_room(peer_address)) {
      log_refusal("refused a connection: " + std::to_string(kMaxConnections) + " already open");
      continue;
    }
    ::fcntl(socket.native_handle(), F_SETFD, FD_CLOEXEC);  // the commands must not hold rank 0's sockets
    socket.set_option(tcp::no_delay(true), ec);
    asio::co_spawn(io, serve_connection(std::move(socket), peer_address, from), asio::detached);
  }
}

// The hello: this job's is answered with the agent's nonce and proof, anything else
// closes the connection (another job's hello told no more than "refused").
awaitable<bool> AgentServer::State::answer_hello(tcp::socket& socket, const Frame& frame, Session& session,
                                                 const std::string& from) {
  if (!is_request(frame, from)) co_return false;
  auto hello = decode_request(frame.body);
  if (!hello || hello->op != Op::kHello) {
    log_refusal("closed the connection from " + from + ": " +
                (hello ? "a request before the hello" : hello.error().message));
    co_return false;
  }
  if (hello->job != options.job) {
    log_refusal("refused " + from + ": a hello of job " + hello->job.substr(0, 200));
    const nlohmann::json refused = error_reply(ErrorCode::kInvalidInput, "refused");
    co_await write_reply(socket, refused);
    co_return false;
  }
  session.nonce = random_nonce();
  const nlohmann::json answer = hello_answer(hello->nonce, session.nonce);
  co_return co_await write_reply(socket, answer);
}

awaitable<void> AgentServer::State::serve_connection(tcp::socket socket, std::string peer, std::string from) {
  struct Admitted {
    ConnectionGate& gate;
    uint64_t id;
    ~Admitted() { gate.gone(id); }
  } admitted{gate, gate.admit(peer, [&socket] {
               boost::system::error_code ignored;
               socket.close(ignored);  // its coroutine sees the close and ends
             })};
  // The hello and a first request proving the secret, both by this deadline: a
  // stranger who knows the job id holds its connection no longer than one who sends nothing.
  const auto deadline = std::chrono::steady_clock::now() + options.hello_timeout;
  const std::string in_time = " within " + std::to_string(options.hello_timeout.count()) + " ms";
  Session session;
  auto hello = co_await read_until(socket, deadline);
  if (!hello) co_return log_refusal("dropped " + from + ": no request" + in_time);
  if (!co_await answer_hello(socket, *hello, session, from)) co_return;
  auto first = co_await read_until(socket, deadline);
  if (!first) co_return log_refusal("dropped " + from + ": no request proving the secret" + in_time);
  Frame frame = std::move(*first);
  for (;;) {
    if (!is_request(frame, from)) co_return;
    auto request = decode_request(frame.body);
    if (!request) {
      log_refusal("closed the connection from " + from + ": " + request.error().message);
      co_return;
    }
    const auto refused = refusal(*request, session);
    if (refused) {
      log_refusal("refused " + from + ": " + (*refused)["message"].get<std::string>());
      co_await write_reply(socket, *refused);
      co_return;
    }
    gate.proven(admitted.id);
    const bool keep = co_await dispatch(socket, *request, session);
    if (!keep) co_return;
    frame = co_await read_frame(socket);
  }
}

awaitable<bool> AgentServer::State::dispatch(tcp::socket& socket, const Request& request, Session& session) {
  // Plain ifs and named results: g++ 12 miscompiles co_await inside a switch's cases.
  const Op op = request.op;
  bool keep = false;
  if (op == Op::kHealth) {
    keep = co_await write_reply(socket, health());
  } else if (op == Op::kRun || op == Op::kStream) {
    keep = co_await run_command(socket, request, op == Op::kRun, running);
  } else if (op == Op::kDownload) {
    keep = co_await send_file(socket, request.path, options.allowed_roots);
  } else if (op == Op::kWill) {
    will = request.command;
    keep = co_await write_reply(socket, ok_reply());
  } else if (op == Op::kLease && lease_taken) {
    log("refused a second lease: another rank 0 holds this agent");
    co_await write_reply(socket, error_reply(ErrorCode::kInvalidInput, "another rank 0 holds this agent's lease"));
  } else if (op == Op::kLease) {
    lease_taken = true;
    first_contact.cancel();
    const bool written = co_await write_reply(socket, ok_reply());
    if (written) co_await hold_lease(socket, session);
    else end(kLeaseLost, "lease lost: rank 0's connection closed as the lease opened");
  } else {
    log(std::string("closed a connection: ") + (op == Op::kHello ? "a second hello" : op == Op::kBeat ? "beat" : "done") +
        (op == Op::kHello ? "" : " outside the lease"));
  }
  co_return keep;
}

// The lease: beats at least every lease_grace, and done at the end. Anything else
// (closed, reset, silence, a bad frame) means rank 0 is gone.
awaitable<void> AgentServer::State::hold_lease(tcp::socket& socket, Session& session) {
  for (;;) {
    auto next = co_await (read_frame(socket) || sleep_for(options.lease_grace));
    if (next.index() == 1)
      co_return end(kLeaseLost, "lease lost: no heartbeat from rank 0 for " +
                                    std::to_string(options.lease_grace.count()) + " s");
    const Frame& frame = std::get<0>(next);
    if (!frame.problem.empty())
      co_return end(kLeaseLost, "lease lost: rank 0's connection ended without done (" + frame.problem + ")");
    auto request = decode_request(frame.body);
    if (!request || refusal(*request, session) || (request->op != Op::kBeat && request->op != Op::kDone))
      co_return end(kLeaseLost, "lease lost: a frame on the lease that is not a beat or done");
    if (request->op == Op::kDone) {
      co_await write_reply(socket, ok_reply());
      co_return end(0, "rank 0 said done");
    }
  }
}

void AgentServer::State::run_will() {
  if (will.empty()) return;
  log("running rank 0's last will");
  auto child = ChildProcess::start("exec >/dev/null 2>&1\n" + will, true);
  if (!child) return log("the last will did not start: " + child.error().message);
  const auto deadline = std::chrono::steady_clock::now() + kWillTimeout;
  while (!child->poll_exit() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (!child->poll_exit()) log("the last will ran past 60 s: killed");
  child->kill_and_reap();
}

AgentServer::AgentServer(std::unique_ptr<State> state) : state_(std::move(state)) {}
AgentServer::~AgentServer() = default;

uint16_t AgentServer::port() const { return state_->acceptor.local_endpoint().port(); }

Result<std::unique_ptr<AgentServer>> AgentServer::start(AgentOptions options) {
  if (options.secret.size() < 32)
    return Error{ErrorCode::kInvalidInput, "the agent's secret is shorter than 32 bytes", "agent"};
  if (options.job.empty()) return Error{ErrorCode::kInvalidInput, "the agent needs its job's id", "agent"};
  if (options.host.empty()) return Error{ErrorCode::kInvalidInput, "the agent needs its node's name", "agent"};
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(options.bind_address, ec);
  if (ec)
    return Error{ErrorCode::kInvalidInput, "not an IP address to bind: \"" + options.bind_address + "\"", "agent"};
  auto state = std::make_unique<State>();
  state->options = std::move(options);
  state->me = {state->options.host, state->options.bind_address, 0, state->options.rank};
  const tcp::endpoint endpoint(address, state->options.port);
  state->acceptor.open(endpoint.protocol(), ec);
  if (!ec) state->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) state->acceptor.bind(endpoint, ec);
  if (!ec) state->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return Error{ErrorCode::kIo, "cannot listen on " + endpoint.address().to_string() + ":" +
                                     std::to_string(endpoint.port()) + ": " + ec.message(), "agent"};
  ::fcntl(state->acceptor.native_handle(), F_SETFD, FD_CLOEXEC);
  state->me.port = state->acceptor.local_endpoint().port();
  return std::unique_ptr<AgentServer>(new AgentServer(std::move(state)));
}

void AgentServer::stop() {
  asio::post(state_->io, [s = state_.get()] { s->end(kStopped, "stopped"); });
}

int AgentServer::serve() {
  State& s = *state_;
  ::signal(SIGPIPE, SIG_IGN);  // a write to a closed socket is an error value, never the agent's end
  asio::co_spawn(s.io, s.accept_loop(), asio::detached);
  s.first_contact.expires_after(s.options.first_contact);
  s.first_contact.async_wait([&s](const boost::system::error_code& ec) {
    if (!ec)
      s.end(kNoFirstContact, "no rank 0 opened a lease within " + std::to_string(s.options.first_contact.count()) + " s");
  });
  try {
    s.io.run();
  } catch (const std::exception& e) {
    s.end(kLeaseLost, std::string("internal error: ") + e.what());
  }
  for (ChildProcess* child : s.running) child->kill_and_reap();
  if (s.exit_code.value_or(kLeaseLost) != 0) s.run_will();
  return s.exit_code.value_or(kLeaseLost);
}

}  // namespace aorta::agent
