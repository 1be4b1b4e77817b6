// One node's SSH connection: a libssh2 session in non-blocking mode on an Asio
// socket, so one thread drives any number of nodes. Each operation is a coroutine
// that calls libssh2 until it stops saying EAGAIN, waiting on the socket in between.
// A connection runs one operation at a time; the transport keeps it that way.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <type_traits>
#include <string>
#include <vector>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/generic/stream_protocol.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "cluster/transport.h"
#include "common/result.h"

typedef struct _LIBSSH2_SESSION LIBSSH2_SESSION;
typedef struct _LIBSSH2_SFTP LIBSSH2_SFTP;
typedef struct _LIBSSH2_CHANNEL LIBSSH2_CHANNEL;

namespace aorta::cluster {

// The bastion every node is reached through (the cluster file's ssh.jump_host,
// its left-out fields already filled from the cluster's).
struct SshJumpOptions {
  std::string host;
  int port = 22;
  std::string user;
  std::filesystem::path private_key;
  std::filesystem::path known_hosts;
  std::string key_passphrase;         // filled by SshTransport::create; never logged
};

struct SshOptions {
  std::string user;
  // Tried in OpenSSH's order: the key file when given, then the agent's identities,
  // then the password.
  std::filesystem::path private_key;
  std::string key_passphrase;         // filled by SshTransport::create; never logged
  std::string key_passphrase_env;     // where the passphrase comes from (ssh.key_passphrase_env)
  bool ask_passphrase = true;         // else ask on the terminal (stdin a tty, no variable named)
  std::filesystem::path agent_socket; // empty: $SSH_AUTH_SOCK
  std::string password;
  int port = 22;
  std::filesystem::path known_hosts;  // OpenSSH format
  bool check_host_key = true;         // false only by the cluster file's explicit opt-out
  std::chrono::seconds connect_timeout{30};
  std::optional<SshJumpOptions> jump;
};

using Deadline = std::chrono::steady_clock::time_point;

class SshJump;

class SshConnection {
 public:
  // With a jump host, the connection goes through a tunnel `jump` opens (jump must
  // outlive the connection); without, straight to the node's port.
  SshConnection(boost::asio::io_context& io, std::string host, const SshOptions& options, SshJump* jump = nullptr);
  ~SshConnection();
  SshConnection(const SshConnection&) = delete;
  SshConnection& operator=(const SshConnection&) = delete;

  bool connected() const { return session_ != nullptr; }
  const std::string& host() const { return host_; }
  // TCP connect, handshake, host key check and authentication, within `limit`
  // (SshOptions::connect_timeout when none).
  boost::asio::awaitable<Status> connect(std::optional<std::chrono::seconds> limit = std::nullopt);
  // Runs `command` with the remote shell; stdout and stderr are read both, in order
  // of arrival. Past `deadline` the connection is dropped (its state is unknown).
  boost::asio::awaitable<Result<CommandResult>> exec(const std::string& command, Deadline deadline);
  // Runs `command`; its stdout is written to `local_path` as it arrives (a wide
  // channel window keeps many megabytes in flight), its stderr kept apart.
  boost::asio::awaitable<Result<StreamResult>> exec_to_file(const std::string& command,
                                                            const std::filesystem::path& local_path, Deadline deadline,
                                                            uint64_t max_bytes);
  boost::asio::awaitable<Status> download(const std::string& remote_path, const std::filesystem::path& local_path,
                                          Deadline deadline, uint64_t max_bytes);
  // Writes `local_path` to `remote_path` over SFTP (created 0600, or truncated).
  boost::asio::awaitable<Status> upload(const std::filesystem::path& local_path, const std::string& remote_path,
                                        Deadline deadline);
  // Drops the session; the next operation reconnects.
  void close();

 private:
  // Connects if need be and starts the session's SFTP subsystem once.
  boost::asio::awaitable<Status> start_sftp(Deadline deadline, const std::string& timed_out);
  // Waits until the socket is ready in the direction libssh2 is blocked on; false
  // once `deadline` has passed.
  boost::asio::awaitable<bool> wait_socket(Deadline deadline);
  // Calls `call` until libssh2 stops answering EAGAIN; nullopt past the deadline.
  template <typename Call>
  boost::asio::awaitable<std::optional<std::invoke_result_t<Call>>> retry(Call call, Deadline deadline);
  // A channel running `command`, or an error (the connection dropped).
  boost::asio::awaitable<Result<LIBSSH2_CHANNEL*>> start(const std::string& command, unsigned window, Deadline deadline,
                                                         const std::string& timed_out);
  // Reads a running channel's stdout and stderr into the sinks, in order of arrival,
  // until the command's end of output; `buffer` sets how much one read takes. A sink
  // that answers false stops it: the connection is dropped, so the node stops sending.
  using Sink = std::function<bool(const char* bytes, size_t size)>;
  boost::asio::awaitable<Status> drain(LIBSSH2_CHANNEL* channel, std::vector<char>& buffer, const Sink& out,
                                       const Sink& err, Deadline deadline, const std::string& timed_out);
  // Closes a finished channel; its exit status (128 + signal for a signalled command).
  boost::asio::awaitable<Result<int>> finish(LIBSSH2_CHANNEL* channel, Deadline deadline, const std::string& timed_out);
  friend class SshJump;  // the bastion's session carries the tunnels
  Error fail(ErrorCode code, const std::string& what);
  // The TCP connection to the node, or the tunnel to it through the jump host.
  boost::asio::awaitable<Status> open_socket(Deadline deadline, const std::string& waited);
  std::string last_error() const;
  Status check_host_key();
  // Key file, agent, password, in that order; what was tried goes into the error.
  boost::asio::awaitable<Status> authenticate(Deadline deadline, const std::string& waited);
  boost::asio::awaitable<std::optional<int>> agent_login(Deadline deadline, std::string& tried);

  boost::asio::generic::stream_protocol::socket socket_;  // TCP, or a socketpair end for a tunnel
  std::string host_;
  const SshOptions& options_;
  SshJump* jump_;
  LIBSSH2_SESSION* session_ = nullptr;
  LIBSSH2_SFTP* sftp_ = nullptr;
};

}  // namespace aorta::cluster
