#include "agent/agent_role.h"

#include <netdb.h>
#include <signal.h>
#include <unistd.h>

#include <iostream>

#include <boost/asio/ip/address.hpp>

#include "agent/agent_server.h"
#include "agent/rendezvous.h"

namespace aorta::agent {

Result<std::string> node_address(const std::string& node_name) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(node_name.c_str(), nullptr, &hints, &found); rc != 0)
    return Error{ErrorCode::kNotFound, std::string("does not resolve: ") + ::gai_strerror(rc), node_name};
  std::string v4, v6;
  char text[NI_MAXHOST] = {};
  for (addrinfo* a = found; a; a = a->ai_next)
    if (::getnameinfo(a->ai_addr, a->ai_addrlen, text, sizeof text, nullptr, 0, NI_NUMERICHOST) == 0) {
      if (a->ai_family == AF_INET && v4.empty()) v4 = text;
      if (a->ai_family == AF_INET6 && v6.empty()) v6 = text;
    }
  ::freeaddrinfo(found);
  std::string address = v4.empty() ? v6 : v4;
  boost::system::error_code ec;
  auto parsed = boost::asio::ip::make_address(address, ec);
  if (address.empty() || ec || parsed.is_unspecified())
    return Error{ErrorCode::kNotFound, "has no address to listen on", node_name};
  return address;
}

namespace {

void outlive(int) {}

// SIGINT and SIGTERM reach every task of a step (Ctrl-C on srun, scancel): rank 0
// handles them and still needs its agents for the teardown, so an agent lives on and
// ends with rank 0 (done, or the lease lost). A handler, not SIG_IGN: the commands
// the agent starts get the default back at exec.
void outlive_interrupts() {
  struct sigaction action {};
  action.sa_handler = outlive;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

}  // namespace

int serve_as_agent(const AgentRole& role) {
  outlive_interrupts();
  const std::string who = "aorta_suite agent (rank " + std::to_string(role.rank) + ", " + role.node_name + "): ";
  auto fail = [&](const Error& e) {
    std::cerr << who << e.describe() << "\n";
    return 1;
  };
  auto meeting = Rendezvous::join(role.shared_root, role.job, role.wait);
  if (!meeting) return fail(meeting.error());
  auto address = node_address(role.node_name);
  if (!address) return fail(address.error());
  AgentOptions options;
  options.secret = meeting->secret();
  options.job = role.job;
  options.bind_address = *address;
  options.host = role.node_name;
  options.rank = role.rank;
  options.allowed_roots = role.allowed_roots;
  auto server = AgentServer::start(std::move(options));
  if (!server) return fail(server.error());
  Published me{role.rank, role.node_name, *address, (*server)->port(), static_cast<long>(::getpid())};
  if (Status s = meeting->publish(me); !s) return fail(s.error());
  const int status = (*server)->serve();
  // Rank 0 is gone and cannot clean up: the agent beside it (rank 0's own node's)
  // removes the rendezvous, secret included.
  if (status == kLeaseLost && role.rank == 0) meeting->remove();
  return status;
}

}  // namespace aorta::agent
