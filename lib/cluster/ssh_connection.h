// One node's SSH connection: a libssh2 session in non-blocking mode on an Asio
// socket, so one thread drives any number of nodes. Each operation is a coroutine
// that calls libssh2 until it stops saying EAGAIN, waiting on the socket in between.
// A connection runs one operation at a time; the transport keeps it that way.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <type_traits>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "cluster/transport.h"
#include "common/result.h"

typedef struct _LIBSSH2_SESSION LIBSSH2_SESSION;
typedef struct _LIBSSH2_SFTP LIBSSH2_SFTP;

namespace aorta::cluster {

struct SshOptions {
  std::string user;
  std::filesystem::path private_key;  // empty: password authentication
  std::string password;
  int port = 22;
  std::filesystem::path known_hosts;  // OpenSSH format
  bool check_host_key = true;         // false only by the cluster file's explicit opt-out
  std::chrono::seconds connect_timeout{30};
};

using Deadline = std::chrono::steady_clock::time_point;

class SshConnection {
 public:
  SshConnection(boost::asio::io_context& io, std::string host, const SshOptions& options);
  ~SshConnection();
  SshConnection(const SshConnection&) = delete;
  SshConnection& operator=(const SshConnection&) = delete;

  bool connected() const { return session_ != nullptr; }
  const std::string& host() const { return host_; }
  // TCP connect, handshake, host key check and authentication.
  boost::asio::awaitable<Status> connect();
  // Runs `command` with the remote shell; stdout and stderr are read both, in order
  // of arrival. Past `deadline` the connection is dropped (its state is unknown).
  boost::asio::awaitable<Result<CommandResult>> exec(const std::string& command, Deadline deadline);
  boost::asio::awaitable<Status> download(const std::string& remote_path, const std::filesystem::path& local_path,
                                          Deadline deadline);
  // Drops the session; the next operation reconnects.
  void close();

 private:
  // Waits until the socket is ready in the direction libssh2 is blocked on; false
  // once `deadline` has passed.
  boost::asio::awaitable<bool> wait_socket(Deadline deadline);
  // Calls `call` until libssh2 stops answering EAGAIN; nullopt past the deadline.
  template <typename Call>
  boost::asio::awaitable<std::optional<std::invoke_result_t<Call>>> retry(Call call, Deadline deadline);
  Error fail(ErrorCode code, const std::string& what);
  std::string last_error() const;
  Status check_host_key();

  boost::asio::ip::tcp::socket socket_;
  std::string host_;
  const SshOptions& options_;
  LIBSSH2_SESSION* session_ = nullptr;
  LIBSSH2_SFTP* sftp_ = nullptr;
};

}  // namespace aorta::cluster
