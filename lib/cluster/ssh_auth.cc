// SshConnection's authentication, in OpenSSH's order: the key file, the agent's
// identities, the password; what was tried goes into the error.
#include <libssh2.h>

#include <cstdlib>
#include <optional>

#include "cluster/ssh_connection.h"
#include "cluster/ssh_key.h"
#include "cluster/ssh_retry.h"

namespace aorta::cluster {
namespace asio = boost::asio;
using asio::awaitable;

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

}  // namespace aorta::cluster
