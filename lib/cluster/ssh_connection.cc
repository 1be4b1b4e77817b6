// SshConnection's session: the socket (TCP, or a tunnel through the jump host), the
// handshake, the host key check, and the session's end. Authentication is in
// ssh_auth.cc, commands in ssh_exec.cc, file copies in ssh_sftp.cc.
#include "cluster/ssh_connection.h"

#include <libssh2.h>
#include <libssh2_sftp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <optional>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "cluster/ssh_jump.h"
#include "cluster/ssh_retry.h"

namespace aorta::cluster {
namespace asio = boost::asio;
using asio::awaitable;
using asio::ip::tcp;
using namespace asio::experimental::awaitable_operators;

namespace {
constexpr auto kTuple = asio::as_tuple(asio::use_awaitable);

int knownhost_key_type(int hostkey_type) {
  switch (hostkey_type) {
    case LIBSSH2_HOSTKEY_TYPE_RSA: return LIBSSH2_KNOWNHOST_KEY_SSHRSA;
    case LIBSSH2_HOSTKEY_TYPE_DSS: return LIBSSH2_KNOWNHOST_KEY_SSHDSS;
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_256: return LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_384: return LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
    case LIBSSH2_HOSTKEY_TYPE_ECDSA_521: return LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
    case LIBSSH2_HOSTKEY_TYPE_ED25519: return LIBSSH2_KNOWNHOST_KEY_ED25519;
    default: return LIBSSH2_KNOWNHOST_KEY_UNKNOWN;
  }
}

}  // namespace

SshConnection::SshConnection(asio::io_context& io, std::string host, const SshOptions& options, SshJump* jump)
    : socket_(io), host_(std::move(host)), options_(options), jump_(jump) {}

SshConnection::~SshConnection() { close(); }

void SshConnection::close() {
  boost::system::error_code ignored;
  socket_.shutdown(asio::socket_base::shutdown_both, ignored);
  socket_.close(ignored);
  // With the socket gone, libssh2's goodbye messages fail at once instead of waiting.
  if (sftp_) {
    libssh2_session_set_blocking(session_, 1);
    libssh2_sftp_shutdown(sftp_);
    sftp_ = nullptr;
  }
  if (session_) {
    libssh2_session_set_blocking(session_, 1);
    libssh2_session_free(session_);
    session_ = nullptr;
  }
}

std::string SshConnection::last_error() const {
  char* message = nullptr;
  if (session_) libssh2_session_last_error(session_, &message, nullptr, 0);
  return message ? message : "unknown libssh2 error";
}

Error SshConnection::fail(ErrorCode code, const std::string& what) {
  // Through a bastion, say so: the fault may be on either hop.
  bool names_jump = !jump_ || what.rfind("jump host ", 0) == 0;
  Error e{code, names_jump ? what : what + " (through " + jump_->name() + ")", host_};
  close();
  return e;
}

awaitable<bool> SshConnection::wait_socket(Deadline deadline) {
  if (std::chrono::steady_clock::now() >= deadline) co_return false;
  int directions = session_ ? libssh2_session_block_directions(session_) : 0;
  auto what = (directions & LIBSSH2_SESSION_BLOCK_OUTBOUND) ? asio::socket_base::wait_write : asio::socket_base::wait_read;
  asio::steady_timer timer(co_await asio::this_coro::executor, deadline);
  auto done = co_await (socket_.async_wait(what, kTuple) || timer.async_wait(kTuple));
  co_return done.index() == 0;
}

Status SshConnection::check_host_key() {
  size_t length = 0;
  int type = 0;
  const char* key = libssh2_session_hostkey(session_, &length, &type);
  if (!key) return fail(ErrorCode::kIo, "the server sent no host key");
  LIBSSH2_KNOWNHOSTS* known = libssh2_knownhost_init(session_);
  std::string file = options_.known_hosts.string();
  int read = libssh2_knownhost_readfile(known, file.c_str(), LIBSSH2_KNOWNHOST_FILE_OPENSSH);
  int check = LIBSSH2_KNOWNHOST_CHECK_NOTFOUND;
  if (read >= 0)
    check = libssh2_knownhost_checkp(known, host_.c_str(), options_.port, key, length,
                                     LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW |
                                         knownhost_key_type(type),
                                     nullptr);
  libssh2_knownhost_free(known);
  std::string port = std::to_string(options_.port);
  switch (check) {
    case LIBSSH2_KNOWNHOST_CHECK_MATCH:
      return ok_status();
    case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
      return fail(ErrorCode::kInvalidInput,
                  "HOST KEY MISMATCH: the key offered differs from the one in " + file +
                      ". Someone may be intercepting the connection. If the node was reinstalled, "
                      "remove the old entry (ssh-keygen -R " + host_ + " -f " + file + ") and add the new one");
    default:
      return fail(ErrorCode::kInvalidInput,
                  "host key is not in " + file + (read < 0 ? " (the file cannot be read)" : "") +
                      ". Check the node's fingerprint, then add it (ssh-keyscan -p " + port + " " + host_ + " >> " +
                      file + "), or opt out with \"ssh\": {\"strict_host_key_checking\": false} in the cluster file");
  }
}

awaitable<Status> SshConnection::open_socket(Deadline deadline, const std::string& waited) {
  if (jump_) {
    auto tunnel = co_await jump_->open_tunnel(host_, options_.port, deadline);
    if (!tunnel) co_return fail(tunnel.error().code, tunnel.error().message);
    socket_.assign(asio::generic::stream_protocol(AF_UNIX, 0), *tunnel);
    co_return ok_status();
  }
  auto executor = co_await asio::this_coro::executor;
  std::string port = std::to_string(options_.port);
  tcp::resolver resolver(executor);
  asio::steady_timer timer(executor, deadline);
  auto resolved = co_await (resolver.async_resolve(host_, port, kTuple) || timer.async_wait(kTuple));
  if (resolved.index() != 0) co_return fail(ErrorCode::kTimeout, "host name not resolved" + waited);
  auto [resolve_error, endpoints] = std::get<0>(resolved);
  if (resolve_error) co_return fail(ErrorCode::kNotFound, "cannot resolve host name: " + resolve_error.message());

  tcp::socket tcp_socket(executor);
  auto connected = co_await (asio::async_connect(tcp_socket, endpoints, kTuple) || timer.async_wait(kTuple));
  if (connected.index() != 0)
    co_return fail(ErrorCode::kTimeout, "no TCP answer on port " + port + waited + ": is the node up and reachable?");
  auto [error, endpoint] = std::get<0>(connected);
  if (error)
    co_return fail(ErrorCode::kNotFound, "cannot connect to port " + port + ": " + error.message() +
                                             " (is sshd running on the node?)");
  // SSH is many small request/answer packets; Nagle's algorithm would hold each
  // back for the peer's delayed ACK (tens of ms per round trip).
  boost::system::error_code ignored;
  tcp_socket.set_option(tcp::no_delay(true), ignored);
  socket_.assign(asio::generic::stream_protocol(endpoint.protocol().family(), IPPROTO_TCP), tcp_socket.release());
  co_return ok_status();
}

awaitable<Status> SshConnection::connect(std::optional<std::chrono::seconds> limit) {
  close();
  const std::chrono::seconds within = limit.value_or(options_.connect_timeout);
  Deadline deadline = std::chrono::steady_clock::now() + within;
  std::string waited = " within " + std::to_string(within.count()) + "s";
  if (Status s = co_await open_socket(deadline, waited); !s) co_return s;

  session_ = libssh2_session_init();
  if (!session_) co_return fail(ErrorCode::kIo, "libssh2 could not create a session");
  libssh2_session_set_blocking(session_, 0);
  auto handshake = co_await retry([&] { return libssh2_session_handshake(session_, socket_.native_handle()); }, deadline);
  if (!handshake) co_return fail(ErrorCode::kTimeout, "SSH handshake did not finish" + waited);
  if (*handshake != 0) co_return fail(ErrorCode::kIo, "SSH handshake failed: " + last_error());

  if (options_.check_host_key)
    if (Status s = check_host_key(); !s) co_return s;

  co_return co_await authenticate(deadline, waited);
}

}  // namespace aorta::cluster
