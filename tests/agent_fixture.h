// A real agent on 127.0.0.1 serving from a thread, for the agent's tests; and the
// small checks they share (a process alive, a file's pid awaited, a raw socket).
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "tests/process_state.h"
#include "agent/agent_server.h"
#include "agent/agent_transport.h"
#include "tests/temp_dir.h"

namespace aorta::testing {

inline const std::string kAgentSecret(40, 's');
inline const std::string kAgentJob = "4242.0";

inline agent::AgentOptions agent_options(const std::filesystem::path& root) {
  agent::AgentOptions options;
  options.secret = kAgentSecret;
  options.job = kAgentJob;
  options.bind_address = "127.0.0.1";
  options.host = "node1";
  options.rank = 0;
  options.allowed_roots = {root};
  options.first_contact = std::chrono::seconds(60);
  return options;
}

// The agent started and served on a thread; serve()'s code in `result`.
struct RunningAgent {
  explicit RunningAgent(agent::AgentOptions options) : host(options.host), rank(options.rank) {
    auto started = agent::AgentServer::start(std::move(options));
    if (!started) ADD_FAILURE() << started.error().describe();
    server = std::move(*started);
    result = std::async(std::launch::async, [s = server.get()] { return s->serve(); });
  }
  ~RunningAgent() {
    if (server) server->stop();
  }
  // Who it is and where it listens: what rank 0 expects of it.
  agent::AgentEndpoint endpoint() const { return {host, "127.0.0.1", server->port(), rank}; }
  // serve()'s code, or -1 when it has not returned within `wait`.
  int code(std::chrono::seconds wait = std::chrono::seconds(15)) {
    return result.wait_for(wait) == std::future_status::ready ? result.get() : -1;
  }
  std::string host;
  int rank = 0;
  std::unique_ptr<agent::AgentServer> server;
  std::future<int> result;
};


// The pid a command wrote to `file`, once it is there (0 after 10 s).
inline pid_t wait_for_pid(const std::filesystem::path& file) {
  for (int i = 0; i < 500; ++i) {
    std::ifstream in(file);
    pid_t pid = 0;
    if (in >> pid && pid > 0) return pid;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return 0;
}

inline sockaddr_in loopback(const char* ip, uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  ::inet_pton(AF_INET, ip, &address.sin_addr);
  return address;
}

// A plain TCP connection to the agent, for the tests that misbehave as a client;
// `from` another loopback address (127.0.0.2, ...) to stand for another peer.
inline int raw_connect(uint16_t port, const char* from = "127.0.0.1") {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in source = loopback(from, 0);
  sockaddr_in address = loopback("127.0.0.1", port);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof source) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// A relay listening on `ip`:`port` (0: any free port) that forwards each connection to
// the agent on 127.0.0.1:`target`, byte for byte: a stranger on a dead agent's
// address passing rank 0 on to another agent of the job.
struct Relay {
  Relay(uint16_t target, const char* ip = "127.0.0.1", uint16_t port = 0) : target(target) {
    listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address = loopback(ip, port);
    socklen_t size = sizeof address;
    if (::bind(listener, reinterpret_cast<sockaddr*>(&address), size) != 0 || ::listen(listener, 8) != 0)
      ADD_FAILURE() << "the relay cannot listen on " << ip << ":" << port;
    ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &size);
    this->port = ntohs(address.sin_port);
    thread = std::thread([this] { serve(); });
  }
  ~Relay() {
    ::shutdown(listener, SHUT_RDWR);  // accept returns
    thread.join();
    ::close(listener);
  }
  void serve() const {
    for (int client; (client = ::accept(listener, nullptr, nullptr)) >= 0;) {
      const int upstream = raw_connect(target);
      if (upstream >= 0) pump(client, upstream);
      ::close(client);
      if (upstream >= 0) ::close(upstream);
    }
  }
  // Until either side closes or both are silent for 10 s.
  static void pump(int a, int b) {
    pollfd fds[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
    char buffer[65536];
    while (::poll(fds, 2, 10000) > 0)
      for (int i = 0; i < 2; ++i) {
        if (!fds[i].revents) continue;
        const ssize_t n = ::recv(fds[i].fd, buffer, sizeof buffer, 0);
        if (n <= 0 || ::send(fds[1 - i].fd, buffer, static_cast<size_t>(n), MSG_NOSIGNAL) != n) return;
      }
  }
  uint16_t target;
  uint16_t port = 0;
  int listener = -1;
  std::thread thread;
};

// Whether the agent closed `fd` within `wait` (a read sees the end or a reset).
inline bool closed_within(int fd, std::chrono::milliseconds wait) {
  timeval tv{static_cast<time_t>(wait.count() / 1000), static_cast<suseconds_t>(wait.count() % 1000 * 1000)};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char buffer[256];
  for (;;) {
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

}  // namespace aorta::testing
