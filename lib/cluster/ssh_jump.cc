#include "cluster/ssh_jump.h"

#include <libssh2.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/parallel_group.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace aorta::cluster {
namespace asio = boost::asio;
using asio::awaitable;

namespace {
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);
// A bastion that cannot take our bytes for this long is gone.
constexpr std::chrono::seconds kStallLimit{60};
constexpr size_t kChunk = 32768;
}  // namespace

struct SshJump::Request {
  std::string host;
  int port;
  Deadline deadline;
  Result<int> result = Error{ErrorCode::kIo, "not run", ""};
  asio::steady_timer* done;  // cancelled when result is set
};

struct SshJump::Tunnel {
  Tunnel(asio::any_io_executor executor, LIBSSH2_CHANNEL* c, int fd, std::string name)
      : channel(c), local(executor, asio::generic::stream_protocol(AF_UNIX, 0), fd), node(std::move(name)) {}
  LIBSSH2_CHANNEL* channel;
  Socket local;            // our end of the socketpair; the node's session holds the other
  std::string node;
  std::string to_channel;  // read from the node's session, not yet accepted by the channel
  std::string to_local;    // read from the channel, not yet taken by the node's session
  bool closed = false;
};

SshJump::SshJump(asio::io_context& io, const SshOptions& node_options)
    : strand_(asio::make_strand(io)),
      options_(node_options),
      bastion_(io, node_options.jump->host, options_),
      wake_in_(strand_),
      wake_out_(strand_) {
  const SshJumpOptions& j = *node_options.jump;
  options_.user = j.user;
  options_.private_key = j.private_key;
  options_.key_passphrase = j.key_passphrase;
  options_.port = j.port;
  options_.known_hosts = j.known_hosts;
  options_.jump.reset();
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0)
    throw std::system_error(errno, std::generic_category(), "socketpair for the jump host's wake-up");
  wake_in_.assign(asio::generic::stream_protocol(AF_UNIX, 0), fds[0]);
  wake_out_.assign(asio::generic::stream_protocol(AF_UNIX, 0), fds[1]);
}

SshJump::~SshJump() {
  drop_all();
  boost::system::error_code ignored;
  wake_in_.close(ignored);
  wake_out_.close(ignored);
}

std::string SshJump::name() const { return "jump host " + bastion_.host() + ":" + std::to_string(options_.port); }

void SshJump::stop() {
  stopping_ = true;
  // Shut down, not closed: the descriptors stay valid while the pump may still be in
  // a libssh2 call, which now fails at once instead of waiting.
  if (bastion_.connected()) ::shutdown(bastion_.socket_.native_handle(), SHUT_RDWR);
  for (auto& t : tunnels_)
    if (!t->closed) ::shutdown(t->local.native_handle(), SHUT_RDWR);
  wake();
}

void SshJump::wake() {
  char byte = 1;
  ::send(wake_out_.native_handle(), &byte, 1, MSG_DONTWAIT | MSG_NOSIGNAL);  // full: a wake-up is pending anyway
}

void SshJump::close_tunnel(Tunnel& t) {
  if (t.closed) return;
  t.closed = true;
  boost::system::error_code ignored;
  t.local.close(ignored);  // the node's session sees the end of its connection
}

void SshJump::drop_all() {
  // libssh2_session_free frees the channels with the session.
  for (auto& t : tunnels_) close_tunnel(*t);
  tunnels_.clear();
  bastion_.close();
}

awaitable<Result<int>> SshJump::open_tunnel(std::string host, int port, Deadline deadline) {
  Result<int> result = Error{ErrorCode::kIo, "not run", host};
  // On the pump's strand: the request queue and the pump's state are only touched there.
  co_await asio::co_spawn(
      strand_,
      [&]() -> awaitable<void> {
        if (stopping_) {
          result = Error{ErrorCode::kIo, name() + " is shut down", host};
          co_return;
        }
        asio::steady_timer done(strand_, asio::steady_timer::time_point::max());
        Request request{host, port, deadline, Error{ErrorCode::kIo, "not run", ""}, &done};
        requests_.push_back(&request);
        if (!pumping_) {
          pumping_ = true;
          asio::co_spawn(strand_, pump(), asio::detached);
        } else {
          wake();
        }
        co_await done.async_wait(kTuple);  // expired by the pump once the result is in
        result = std::move(request.result);
      },
      asio::use_awaitable);
  co_return result;
}

template <typename Call>
awaitable<long> SshJump::finish_send(Call call) {
  Deadline deadline = std::chrono::steady_clock::now() + kStallLimit;
  for (;;) {
    if (stopping_) co_return LIBSSH2_ERROR_SOCKET_DISCONNECT;
    long rc = static_cast<long>(call());
    // EAGAIN with the session blocked outbound: a packet is half sent and libssh2
    // refuses any other call until this one has finished sending it.
    if (rc != LIBSSH2_ERROR_EAGAIN ||
        !(libssh2_session_block_directions(bastion_.session_) & LIBSSH2_SESSION_BLOCK_OUTBOUND))
      co_return rc;
    if (!co_await bastion_.wait_socket(deadline)) co_return LIBSSH2_ERROR_TIMEOUT;
  }
}

namespace {
bool session_lost(long rc) {
  return rc == LIBSSH2_ERROR_SOCKET_SEND || rc == LIBSSH2_ERROR_SOCKET_RECV || rc == LIBSSH2_ERROR_SOCKET_DISCONNECT ||
         rc == LIBSSH2_ERROR_SOCKET_TIMEOUT || rc == LIBSSH2_ERROR_TIMEOUT;
}
}  // namespace

awaitable<Result<int>> SshJump::open(const Request& r) {
  std::string hop = name();
  std::string target = r.host + ":" + std::to_string(r.port);
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0)
    co_return Error{ErrorCode::kIo, hop + ": no socketpair for the tunnel to " + target, r.host};
  // Twice: a bastion session that went away since the last tunnel is reopened once.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!bastion_.connected()) {
      Status s = co_await bastion_.connect();
      if (!s) {
        ::close(fds[0]);
        ::close(fds[1]);
        co_return Error{s.error().code, hop + ": " + s.error().message, r.host};
      }
    }
    LIBSSH2_CHANNEL* channel = nullptr;
    bool in_time = true;
    for (;;) {
      channel = libssh2_channel_direct_tcpip_ex(bastion_.session_, r.host.c_str(), r.port, "127.0.0.1", 22);
      if (channel || libssh2_session_last_errno(bastion_.session_) != LIBSSH2_ERROR_EAGAIN) break;
      if (!(in_time = co_await bastion_.wait_socket(r.deadline))) break;
    }
    if (channel) {
      tunnels_.push_back(std::make_unique<Tunnel>(strand_, channel, fds[0], r.host));
      co_return fds[1];
    }
    std::string why = in_time ? bastion_.last_error() : "";
    long rc = in_time ? libssh2_session_last_errno(bastion_.session_) : LIBSSH2_ERROR_TIMEOUT;
    if (!in_time || session_lost(rc)) drop_all();  // a call left half done cannot be abandoned
    if (in_time && session_lost(rc) && attempt == 0) continue;
    ::close(fds[0]);
    ::close(fds[1]);
    if (!in_time) co_return Error{ErrorCode::kTimeout, hop + ": no tunnel to " + target + " in time", r.host};
    co_return Error{ErrorCode::kNotFound,
                    hop + " cannot open a tunnel to " + target + ": " + why +
                        " (is the node reachable from the bastion, and does the bastion's sshd allow TCP forwarding: "
                        "AllowTcpForwarding yes?)",
                    r.host};
  }
  co_return Error{ErrorCode::kIo, hop + ": no tunnel to " + target, r.host};
}

awaitable<bool> SshJump::move_tunnel(Tunnel& t, bool& moved) {
  char buffer[kChunk];
  int fd = t.local.native_handle();
  // Channel to node.
  if (t.to_local.empty()) {
    long n = co_await finish_send([&] { return libssh2_channel_read(t.channel, buffer, sizeof buffer); });
    if (n > 0) {
      t.to_local.assign(buffer, static_cast<size_t>(n));
      moved = true;
    } else if (n == 0 && libssh2_channel_eof(t.channel)) {
      close_tunnel(t);  // the node's sshd went away
      moved = true;
      co_return true;
    } else if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) {
      if (session_lost(n)) co_return false;
      close_tunnel(t);
      co_return true;
    }
  }
  if (!t.to_local.empty()) {
    ssize_t n = ::send(fd, t.to_local.data(), t.to_local.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      t.to_local.erase(0, static_cast<size_t>(n));
      moved = true;
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      close_tunnel(t);
      co_return true;
    }
  }
  // Node to channel.
  if (t.to_channel.empty()) {
    ssize_t n = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
    if (n > 0) {
      t.to_channel.assign(buffer, static_cast<size_t>(n));
      moved = true;
    } else if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
      close_tunnel(t);  // the node's session closed its end
      moved = true;
      co_return true;
    }
  }
  if (!t.to_channel.empty()) {
    long n = co_await finish_send(
        [&] { return libssh2_channel_write(t.channel, t.to_channel.data(), t.to_channel.size()); });
    if (n > 0) {
      t.to_channel.erase(0, static_cast<size_t>(n));
      moved = true;
    } else if (n < 0 && n != LIBSSH2_ERROR_EAGAIN) {
      if (session_lost(n)) co_return false;
      close_tunnel(t);
    }
  }
  co_return true;
}

awaitable<bool> SshJump::move_data(bool& moved) {
  if (stopping_) co_return false;
  for (auto& t : tunnels_) {
    if (!t->closed) {
      if (!co_await move_tunnel(*t, moved)) co_return false;
    } else if (t->channel) {
      // Closing waits for the node's close; libssh2 keeps that state per channel,
      // so the pump goes on with the other tunnels meanwhile.
      long rc = co_await finish_send([&] { return libssh2_channel_free(t->channel); });
      if (rc == LIBSSH2_ERROR_EAGAIN) continue;
      if (session_lost(rc)) co_return false;
      t->channel = nullptr;
      moved = true;
    }
  }
  std::erase_if(tunnels_, [](const auto& t) { return t->closed && !t->channel; });
  co_return true;
}

awaitable<void> SshJump::wait_any() {
  using asio::socket_base;
  std::vector<decltype(wake_in_.async_wait(socket_base::wait_read, asio::deferred))> waits;
  waits.push_back(wake_in_.async_wait(socket_base::wait_read, asio::deferred));
  // The bastion's socket only when a libssh2 call is waiting for it: with no tunnel
  // reading, unread bytes would keep it readable and the pump spinning.
  bool reading = std::any_of(tunnels_.begin(), tunnels_.end(),
                             [](const auto& t) { return t->channel && (t->closed || t->to_local.empty()); });
  if (bastion_.connected() && reading) {
    int directions = libssh2_session_block_directions(bastion_.session_);
    waits.push_back(bastion_.socket_.async_wait(
        (directions & LIBSSH2_SESSION_BLOCK_OUTBOUND) ? socket_base::wait_write : socket_base::wait_read,
        asio::deferred));
  }
  for (auto& t : tunnels_) {
    if (t->closed) continue;
    if (t->to_channel.empty()) waits.push_back(t->local.async_wait(socket_base::wait_read, asio::deferred));
    if (!t->to_local.empty()) waits.push_back(t->local.async_wait(socket_base::wait_write, asio::deferred));
  }
  co_await asio::experimental::make_parallel_group(std::move(waits))
      .async_wait(asio::experimental::wait_for_one(), asio::use_awaitable);
  char drain[64];
  while (::recv(wake_in_.native_handle(), drain, sizeof drain, MSG_DONTWAIT) > 0) {
  }
}

awaitable<void> SshJump::pump() {
  while (!stopping_) {
    while (!requests_.empty() && !stopping_) {
      Request* r = requests_.front();
      requests_.pop_front();
      r->result = co_await open(*r);
      // An expiry in the past, not cancel(): the pump may finish before the caller
      // starts waiting (co_spawn can run it inline), and a wait begun after a
      // cancel() would never end.
      r->done->expires_at(asio::steady_timer::time_point::min());
    }
    if (stopping_) break;
    bool moved = false;
    if (bastion_.connected() && !co_await move_data(moved)) {
      drop_all();
      continue;
    }
    if (moved) continue;
    co_await wait_any();
  }
  drop_all();
  for (Request* r : requests_) {
    r->result = Error{ErrorCode::kIo, name() + " is shut down", r->host};
    r->done->expires_at(asio::steady_timer::time_point::min());
  }
  requests_.clear();
  pumping_ = false;
}

}  // namespace aorta::cluster
