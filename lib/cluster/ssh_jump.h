// The jump host (bastion) every node is reached through, as OpenSSH's ProxyJump:
// one libssh2 session to the bastion, and per node a direct-tcpip channel on it.
// A node's own libssh2 session needs a socket, so each channel is carried over a
// socketpair: the node's session holds one end and the pump below moves bytes
// between the other end and the channel.
//
// libssh2 allows one call in flight per session (after EAGAIN the same call must be
// repeated before any other), so a single coroutine on one strand, the pump, makes
// every call on the bastion's session: it opens the tunnels that nodes ask for and
// moves their bytes. The bastion outlives its tunnels: SshTransport destroys its
// node connections first, then shuts the jump down.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include "cluster/ssh_connection.h"

typedef struct _LIBSSH2_CHANNEL LIBSSH2_CHANNEL;

namespace aorta::cluster {

class SshJump {
 public:
  // `node_options.jump` names the bastion; the other settings (agent, password,
  // host key checking, timeout) are the nodes'.
  SshJump(boost::asio::io_context& io, const SshOptions& node_options);
  ~SshJump();
  SshJump(const SshJump&) = delete;
  SshJump& operator=(const SshJump&) = delete;

  // From any strand: connects to the bastion when not connected, opens a channel to
  // host:port from it and returns a socket (file descriptor, the caller's to own)
  // that carries the channel. Errors name the jump host.
  boost::asio::awaitable<Result<int>> open_tunnel(std::string host, int port, Deadline deadline);
  // Ends the pump: the io_context must then run until the pump has returned (it
  // frees every channel and the bastion session) before this object is destroyed.
  void stop();
  // "jump host bastion.example:22"
  std::string name() const;

 private:
  struct Request;
  struct Tunnel;
  using Socket = boost::asio::generic::stream_protocol::socket;

  boost::asio::awaitable<void> pump();
  boost::asio::awaitable<Result<int>> open(const Request& request);
  // Moves what can be moved without waiting; false when the bastion failed.
  boost::asio::awaitable<bool> move_data(bool& moved);
  boost::asio::awaitable<bool> move_tunnel(Tunnel& t, bool& moved);
  // Waits until the bastion, a tunnel's socket or a new request needs the pump.
  boost::asio::awaitable<void> wait_any();
  // Repeats a libssh2 call while it is blocked part-way through sending.
  template <typename Call>
  boost::asio::awaitable<long> finish_send(Call call);
  void close_tunnel(Tunnel& t);
  // The bastion failed: every tunnel ends, and the next request reconnects.
  void drop_all();
  void wake();

  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  SshOptions options_;  // the bastion's: user, key, port, known_hosts of the jump host
  SshConnection bastion_;
  Socket wake_in_;       // a byte written to wake_out_ wakes the pump
  Socket wake_out_;
  std::deque<Request*> requests_;
  std::vector<std::unique_ptr<Tunnel>> tunnels_;
  bool pumping_ = false;
  bool stopping_ = false;
};

}  // namespace aorta::cluster
