#include "cluster/ssh_connection.h"

#include <libssh2.h>
#include <libssh2_sftp.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>

#include <cstdlib>
#include <fstream>
#include <optional>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "cluster/ssh_jump.h"
#include "cluster/ssh_key.h"

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

int signal_number(const std::string& name) {
  for (auto [n, s] : {std::pair{"TERM", SIGTERM}, {"KILL", SIGKILL}, {"INT", SIGINT}, {"HUP", SIGHUP},
                      {"SEGV", SIGSEGV}, {"ABRT", SIGABRT}, {"PIPE", SIGPIPE}, {"BUS", SIGBUS}})
    if (name == n) return s;
  return 0;
}
}  // namespace

namespace {
bool would_block(LIBSSH2_SESSION*, long rc) { return rc == LIBSSH2_ERROR_EAGAIN; }
template <typename T>
bool would_block(LIBSSH2_SESSION* session, T* handle) {
  return handle == nullptr && libssh2_session_last_errno(session) == LIBSSH2_ERROR_EAGAIN;
}
}  // namespace

template <typename Call>
awaitable<std::optional<std::invoke_result_t<Call>>> SshConnection::retry(Call call, Deadline deadline) {
  for (;;) {
    auto value = call();
    if (!would_block(session_, value)) co_return value;
    if (!co_await wait_socket(deadline)) co_return std::nullopt;
  }
}

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

namespace {
std::filesystem::path agent_socket_path(const SshOptions& options) {
  if (!options.agent_socket.empty()) return options.agent_socket;
  const char* sock = std::getenv("SSH_AUTH_SOCK");
  return sock ? sock : "";
}
}  // namespace

awaitable<std::optional<int>> SshConnection::agent_login(Deadline deadline, std::string& tried) {
  std::filesystem::path socket_path = agent_socket_path(options_);
  std::string where = "ssh-agent at " + socket_path.string();
  LIBSSH2_AGENT* agent = libssh2_agent_init(session_);
  if (!agent) co_return std::nullopt;
  // The agent is a local socket: its requests are answered at once, so talking to
  // it blocks this thread only briefly; the server's answers are waited for as usual.
  std::string path = socket_path.string();
  libssh2_agent_set_identity_path(agent, path.c_str());
  std::optional<int> result = -1;
  if (libssh2_agent_connect(agent) != 0) {
    tried += ", " + where + " (cannot connect to it)";
  } else if (libssh2_agent_list_identities(agent) != 0) {
    tried += ", " + where + " (cannot list its keys)";
  } else {
    int offered = 0;
    libssh2_agent_publickey* identity = nullptr;
    libssh2_agent_publickey* previous = nullptr;
    while (libssh2_agent_get_identity(agent, &identity, previous) == 0) {
      previous = identity;
      ++offered;
      const std::string& user = options_.user;
      result = co_await retry([&] { return libssh2_agent_userauth(agent, user.c_str(), identity); }, deadline);
      if (!result || *result == 0) break;
    }
    tried += ", " + where + " (" + std::to_string(offered) + " key" + (offered == 1 ? "" : "s") + ")";
  }
  libssh2_agent_disconnect(agent);
  libssh2_agent_free(agent);
  co_return result;
}

awaitable<Status> SshConnection::authenticate(Deadline deadline, const std::string& waited) {
  const std::string& user = options_.user;
  auto user_length = static_cast<unsigned>(user.size());
  std::string tried;
  std::string last;
  if (!options_.private_key.empty()) {
    std::string key = options_.private_key.string();
    const char* passphrase = options_.key_passphrase.empty() ? nullptr : options_.key_passphrase.c_str();
    auto by_key = co_await retry([&] { return libssh2_userauth_publickey_fromfile_ex(session_, user.c_str(), user_length, nullptr, key.c_str(),
                                                           passphrase); }, deadline);
    if (!by_key) co_return fail(ErrorCode::kTimeout, "authentication did not finish" + waited);
    if (*by_key == 0) co_return ok_status();
    // libssh2 reports a key it cannot decrypt as a file error, before asking the server.
    if (*by_key == LIBSSH2_ERROR_FILE && passphrase)
      co_return fail(ErrorCode::kInvalidInput,
                     "wrong passphrase for private key " + key +
                         (options_.key_passphrase_env.empty() ? std::string(" (as typed)")
                                                              : " (from the environment variable " +
                                                                    options_.key_passphrase_env + ")"));
    last = last_error() + key_type_hint(options_.private_key);
    tried = "key " + key;
  }
  if (!agent_socket_path(options_).empty()) {
    auto by_agent = co_await agent_login(deadline, tried);
    if (!by_agent) co_return fail(ErrorCode::kTimeout, "authentication did not finish" + waited);
    if (*by_agent == 0) co_return ok_status();
    if (tried.rfind(", ", 0) == 0) tried = tried.substr(2);
  }
  if (!options_.password.empty() || tried.empty()) {
    auto by_password = co_await retry([&] { return libssh2_userauth_password_ex(session_, user.c_str(), user_length, options_.password.c_str(),
                                                 static_cast<unsigned>(options_.password.size()), nullptr); }, deadline);
    if (!by_password) co_return fail(ErrorCode::kTimeout, "authentication did not finish" + waited);
    if (*by_password == 0) co_return ok_status();
    tried += std::string(tried.empty() ? "" : ", ") + "password";
    last = last_error();
  }
  if (last.empty()) last = last_error();
  co_return fail(ErrorCode::kInvalidInput, "authentication as " + user + " with " + tried + " failed: " + last);
}

awaitable<Result<LIBSSH2_CHANNEL*>> SshConnection::start(const std::string& command, unsigned window,
                                                        Deadline deadline, const std::string& timed_out) {
  if (!session_)
    if (Status s = co_await connect(); !s) co_return s.error();
  auto channel = co_await retry([&] { return libssh2_channel_open_ex(session_, "session", sizeof "session" - 1, window,
                                                                     LIBSSH2_CHANNEL_PACKET_DEFAULT, nullptr, 0); },
                                deadline);
  if (!channel) co_return fail(ErrorCode::kTimeout, timed_out);
  if (!*channel) co_return fail(ErrorCode::kIo, "cannot open an SSH channel: " + last_error());
  LIBSSH2_CHANNEL* ch = *channel;
  auto started = co_await retry([&] { return libssh2_channel_process_startup(ch, "exec", 4, command.data(), static_cast<unsigned>(command.size())); }, deadline);
  if (!started) co_return fail(ErrorCode::kTimeout, timed_out);
  if (*started != 0) co_return fail(ErrorCode::kIo, "cannot start the command: " + last_error());
  co_return ch;
}

awaitable<Result<int>> SshConnection::finish(LIBSSH2_CHANNEL* ch, Deadline deadline, const std::string& timed_out) {
  auto closed = co_await retry([&] { return libssh2_channel_close(ch); }, deadline);
  auto waited = co_await retry([&] { return libssh2_channel_wait_closed(ch); }, deadline);
  if (!closed || !waited) co_return fail(ErrorCode::kTimeout, timed_out);
  int exit_code = libssh2_channel_get_exit_status(ch);
  char* signal_name = nullptr;
  libssh2_channel_get_exit_signal(ch, &signal_name, nullptr, nullptr, nullptr, nullptr, nullptr);
  if (signal_name) {
    exit_code = 128 + signal_number(signal_name);  // as a shell reports a signalled child
    libssh2_free(session_, signal_name);
  }
  auto freed = co_await retry([&] { return libssh2_channel_free(ch); }, deadline);
  if (!freed) co_return fail(ErrorCode::kTimeout, timed_out);
  co_return exit_code;
}

awaitable<Status> SshConnection::drain(LIBSSH2_CHANNEL* ch, std::vector<char>& buffer, const Sink& out, const Sink& err,
                                       Deadline deadline, const std::string& timed_out) {
  for (;;) {
    ssize_t got = libssh2_channel_read(ch, buffer.data(), buffer.size());
    if (got > 0 && !out(buffer.data(), static_cast<size_t>(got))) co_return fail(ErrorCode::kIo, "stopped");
    ssize_t said = libssh2_channel_read_stderr(ch, buffer.data(), std::min<size_t>(buffer.size(), 32768));
    if (said > 0 && !err(buffer.data(), static_cast<size_t>(said))) co_return fail(ErrorCode::kIo, "stopped");
    if (got > 0 || said > 0) continue;
    for (ssize_t rc : {got, said})
      if (rc < 0 && rc != LIBSSH2_ERROR_EAGAIN)
        co_return fail(ErrorCode::kIo, "reading the command's output failed: " + last_error());
    if (libssh2_channel_eof(ch)) co_return ok_status();
    if (!co_await wait_socket(deadline)) co_return fail(ErrorCode::kTimeout, timed_out);
  }
}

awaitable<Result<CommandResult>> SshConnection::exec(const std::string& command, Deadline deadline) {
  const std::string timed_out = "command did not finish in time; the connection was dropped";
  auto channel = co_await start(command, LIBSSH2_CHANNEL_WINDOW_DEFAULT, deadline, timed_out);
  if (!channel) co_return channel.error();
  CommandResult result;
  std::vector<char> buffer(32768);
  bool over = false;
  auto both = [&](const char* bytes, size_t size) {
    over = result.output.size() + size > kCommandOutputLimit;
    if (!over) result.output.append(bytes, size);
    return !over;
  };
  if (Status s = co_await drain(*channel, buffer, both, both, deadline, timed_out); !s)
    co_return over ? output_over_limit(host_) : s.error();
  auto exit_code = co_await finish(*channel, deadline, timed_out);
  if (!exit_code) co_return exit_code.error();
  result.exit_code = *exit_code;
  co_return result;
}

awaitable<Result<StreamResult>> SshConnection::exec_to_file(const std::string& command,
                                                           const std::filesystem::path& local_path, Deadline deadline,
                                                           uint64_t max_bytes) {
  const std::string timed_out = "streaming into " + local_path.string() + " did not finish in time; the connection was dropped";
  std::ofstream file(local_path, std::ios::binary | std::ios::trunc);
  if (!file) co_return Error{ErrorCode::kIo, "cannot write " + local_path.string(), host_};
  // libssh2's default window (2 MiB) is one round trip's worth at 200 MB/s and 10 ms:
  // 32 MiB lets the node send on while this side writes.
  auto channel = co_await start(command, 32u << 20, deadline, timed_out);
  if (!channel) co_return channel.error();
  StreamResult result;
  std::vector<char> buffer(1 << 20);
  bool over = false;
  auto out = [&](const char* bytes, size_t size) {
    over = size > max_bytes - result.bytes;
    if (over) return false;
    file.write(bytes, static_cast<std::streamsize>(size));
    result.bytes += size;
    return true;
  };
  auto err = [&](const char* bytes, size_t size) {
    result.errors.append(bytes, std::min(size, kStreamErrorsKept - result.errors.size()));
    return true;
  };
  if (Status s = co_await drain(*channel, buffer, out, err, deadline, timed_out); !s)
    co_return over ? copy_over_limit(host_, local_path, max_bytes) : s.error();
  auto exit_code = co_await finish(*channel, deadline, timed_out);
  if (!exit_code) co_return exit_code.error();
  result.exit_code = *exit_code;
  file.close();
  if (!file) co_return Error{ErrorCode::kIo, "writing " + local_path.string() + " failed (disk full?)", host_};
  co_return result;
}

awaitable<Status> SshConnection::download(const std::string& remote_path, const std::filesystem::path& local_path,
                                          Deadline deadline, uint64_t max_bytes) {
  if (!session_)
    if (Status s = co_await connect(); !s) co_return s.error();
  const std::string timed_out = "download of " + remote_path + " did not finish in time";
  if (!sftp_) {
    auto sftp = co_await retry([&] { return libssh2_sftp_init(session_); }, deadline);
    if (!sftp) co_return fail(ErrorCode::kTimeout, timed_out);
    if (!*sftp) co_return fail(ErrorCode::kIo, "cannot start SFTP (is the sftp subsystem enabled?): " + last_error());
    sftp_ = *sftp;
  }
  auto handle = co_await retry([&] { return libssh2_sftp_open_ex(sftp_, remote_path.c_str(), static_cast<unsigned>(remote_path.size()),
                                       LIBSSH2_FXF_READ, 0, LIBSSH2_SFTP_OPENFILE); }, deadline);
  if (!handle) co_return fail(ErrorCode::kTimeout, timed_out);
  if (!*handle) {
    unsigned long code = libssh2_sftp_last_error(sftp_);
    if (code == LIBSSH2_FX_NO_SUCH_FILE) co_return Error{ErrorCode::kNotFound, "no such file: " + remote_path, host_};
    co_return Error{ErrorCode::kIo, "cannot open " + remote_path + " (SFTP status " + std::to_string(code) + ")",
                    host_};
  }
  std::ofstream out(local_path, std::ios::binary | std::ios::trunc);
  // libssh2 1.10 sends read requests (30000 bytes each) ahead in proportion to the
  // buffer sftp_read is given: 4 MiB keeps many more in flight than 256 KiB did.
  std::vector<char> buffer(4 << 20);
  bool read_failed = false, over = false;
  uint64_t copied = 0;
  for (;;) {
    auto n = co_await retry([&] { return libssh2_sftp_read(*handle, buffer.data(), buffer.size()); }, deadline);
    if (!n) co_return fail(ErrorCode::kTimeout, timed_out);
    if (*n < 0) {
      read_failed = true;
      break;
    }
    if (*n == 0) break;
    // Past the limit: the handle is closed as after a whole file (its reads in flight
    // dropped), so the session serves the next command.
    over = static_cast<uint64_t>(*n) > max_bytes - copied;
    if (over) break;
    out.write(buffer.data(), *n);
    copied += static_cast<uint64_t>(*n);
  }
  auto closed = co_await retry([&] { return libssh2_sftp_close_handle(*handle); }, deadline);
  if (!closed) co_return fail(ErrorCode::kTimeout, timed_out);
  if (read_failed) co_return fail(ErrorCode::kIo, "reading " + remote_path + " failed: " + last_error());
  if (over) co_return copy_over_limit(host_, local_path, max_bytes);
  out.close();
  if (!out) co_return Error{ErrorCode::kIo, "writing " + local_path.string() + " failed (disk full?)", host_};
  co_return ok_status();
}

}  // namespace aorta::cluster
