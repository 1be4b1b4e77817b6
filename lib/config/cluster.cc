#include "config/cluster.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "common/utf8.h"
#include "config/json_fields.h"
#include "config/json_file.h"
#include "config/placeholders.h"
#include "config/secret_values.h"

namespace aorta::config {
namespace fs = std::filesystem;

std::string current_user_id() {
  for (const char* var : {"USER", "LOGNAME", "USERNAME"})
    if (const char* v = std::getenv(var); v && *v) return v;
  return "root";
}

std::string expand_home(const std::string& path) {
  const char* home = std::getenv("HOME");
  if (path.rfind("~/", 0) == 0 && home) return std::string(home) + path.substr(1);
  return path;
}

Cluster local_cluster(const std::string& user_id) {
  Cluster c;
  c.username = user_id;
  c.transport = TransportKind::kLocal;
  c.nodes.push_back({"localhost", "127.0.0.1", ""});
  return c;
}

namespace {

void read_jump_host(const json& jump, JumpHost& out, ConfigErrors& errors) {
  const std::string key = "ssh.jump_host";
  if (!jump.is_object()) {
    errors.add(key, "must be an object with a host");
    return;
  }
  if (!jump.contains("host")) errors.add(key + ".host", "Field required");
  read_string(jump, "host", key, out.host, errors);
  if (jump.contains("host") && out.host.empty()) errors.add(key + ".host", "must not be empty");
  // Validated as soon as it is read: the bastion's name reaches the resolver and error texts.
  if (out.host.find_first_of(" \t\r\n'\"`$;|&<>\\") != std::string::npos)
    errors.add(key + ".host", "must be a host name or address, got '" + out.host + "'");
  out.port = 0;  // 0: the cluster's ssh.port
  read_int(jump, "port", key, out.port, errors);
  if (jump.contains("port") && (out.port < 1 || out.port > 65535))
    errors.add(key + ".port", "must be between 1 and 65535");
  read_string(jump, "user", key, out.user, errors);
  read_string(jump, "priv_key_file", key, out.priv_key_file, errors);
  read_string(jump, "known_hosts", key, out.known_hosts, errors);
  reject_unknown_keys(jump, key, {"host", "port", "user", "priv_key_file", "known_hosts"}, errors);
}

// <changeme> in any letter case in any string of the file (reference §2.2 names
// username; a left-over placeholder anywhere else is as surely a mistake).
void find_changeme(const json& node, const std::string& key, ConfigErrors& errors) {
  if (node.is_string()) {
    std::string lower = node.get<std::string>();
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
    if (lower.find("<changeme>") != std::string::npos) {
      // A secret is never echoed, not even a placeholder-looking one, at any depth
      // (head_node_dict.password, ssh.key_passphrase_env's kin).
      std::string last = key.substr(key.find_last_of('.') == std::string::npos ? 0 : key.find_last_of('.') + 1);
      std::transform(last.begin(), last.end(), last.begin(), [](unsigned char ch) { return std::tolower(ch); });
      bool secret = false;
      for (const char* word : {"pass", "secret", "token", "key"}) secret = secret || last.find(word) != std::string::npos;
      errors.add(key, secret ? "Unresolved configuration placeholder"
                             : "Unresolved configuration placeholder: '" + node.get<std::string>() + "'");
    }
  } else if (node.is_object()) {
    for (const auto& [k, v] : node.items()) find_changeme(v, key.empty() ? k : key + "." + k, errors);
  } else if (node.is_array()) {
    for (size_t i = 0; i < node.size(); ++i) find_changeme(node[i], key + "[" + std::to_string(i) + "]", errors);
  }
}

// CVS shares one cluster file among all its suites and accepts keys Aorta does not
// read, so an unknown key is a warning (a typo shows), not a refusal.
void report_unknown_top_level(const json& doc, const fs::path& file, std::vector<ConfigError>& warnings) {
  static const std::vector<std::string> known = {
      "username", "priv_key_file", "password", "node_dict", "head_node_dict", "orchestrator", "container",
      "env_vars", "racks", "home_mount_dir_name", "node_dir_name", "transport", "ssh"};
  for (const auto& [k, v] : doc.items())
    if (std::find(known.begin(), known.end(), k) == known.end() && k.rfind('_', 0) != 0)
      warnings.push_back({file.string(), k, "unknown cluster file key, ignored"});
}

}  // namespace

void read_ssh_block(const json& ssh, SshSettings& out, ConfigErrors& errors) {
  if (!ssh.is_object()) {
    errors.add("ssh", "must be an object");
    return;
  }
  read_int(ssh, "port", "ssh", out.port, errors);
  read_string(ssh, "known_hosts", "ssh", out.known_hosts, errors);
  read_bool(ssh, "strict_host_key_checking", "ssh", out.strict_host_key_checking, errors);
  read_int(ssh, "connect_timeout_seconds", "ssh", out.connect_timeout_seconds, errors);
  read_string(ssh, "key_passphrase_env", "ssh", out.key_passphrase_env, errors);
  read_string(ssh, "agent_socket", "ssh", out.agent_socket, errors);
  if (out.port < 1 || out.port > 65535) errors.add("ssh.port", "must be between 1 and 65535");
  if (out.connect_timeout_seconds < 1) errors.add("ssh.connect_timeout_seconds", "must be at least 1");
  // An environment variable name, as POSIX shells accept it: a value that looks like
  // a passphrase itself is refused rather than looked up (and never echoed back).
  const std::string& env = out.key_passphrase_env;
  bool env_ok = !env.empty() && !std::isdigit(static_cast<unsigned char>(env[0])) &&
                env.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
                    std::string::npos;
  if (ssh.contains("key_passphrase_env") && !env_ok)
    errors.add("ssh.key_passphrase_env",
               "must name an environment variable (letters, digits, _), not hold the passphrase itself");
  if (ssh.contains("jump_host")) {
    out.jump_host.emplace();
    read_jump_host(ssh.at("jump_host"), *out.jump_host, errors);
  }
  reject_unknown_keys(ssh, "ssh",
                      {"port", "known_hosts", "strict_host_key_checking", "connect_timeout_seconds",
                       "key_passphrase_env", "agent_socket", "jump_host"},
                      errors);
}

void complete_jump_host(Cluster& c) {
  c.ssh.agent_socket = expand_home(c.ssh.agent_socket);
  if (!c.ssh.jump_host) return;
  JumpHost& j = *c.ssh.jump_host;
  if (j.port == 0) j.port = c.ssh.port;
  if (j.user.empty()) j.user = c.username;
  j.priv_key_file = j.priv_key_file.empty() ? c.priv_key_file : expand_home(j.priv_key_file);
  j.known_hosts = j.known_hosts.empty() ? c.ssh.known_hosts : expand_home(j.known_hosts);
}

bool has_agent(const SshSettings& ssh) {
  const char* sock = std::getenv("SSH_AUTH_SOCK");
  return !ssh.agent_socket.empty() || (sock && *sock);
}

namespace {

// How the nodes are reached: the transport, the SSH settings (a key's passphrase is a
// secret too), and that SSH has a way to log in.
void read_access(const json& doc, Cluster& c, std::vector<std::string>& secrets, ConfigErrors& errors) {
  std::string transport = "ssh";
  read_string(doc, "transport", "", transport, errors);
  if (transport == "local") {
    c.transport = TransportKind::kLocal;
  } else if (transport != "ssh") {
    errors.add("transport", "must be ssh or local, got '" + transport + "'");
  }
  if (doc.contains("ssh")) read_ssh_block(doc.at("ssh"), c.ssh, errors);
  if (const char* passphrase = c.ssh.key_passphrase_env.empty() ? nullptr : std::getenv(c.ssh.key_passphrase_env.c_str());
      passphrase && *passphrase)
    secrets.emplace_back(passphrase);
  c.priv_key_file = expand_home(c.priv_key_file);
  c.ssh.known_hosts = expand_home(c.ssh.known_hosts.empty() ? "~/.ssh/known_hosts" : c.ssh.known_hosts);
  complete_jump_host(c);
  if (c.transport == TransportKind::kSsh && c.priv_key_file.empty() && !c.has_password && !has_agent(c.ssh))
    errors.add("", "Authentication required: provide either 'priv_key_file' or 'password' in cluster config "
                   "(or run an ssh-agent: SSH_AUTH_SOCK, or \"ssh\": {\"agent_socket\": ...})");
}

// node_dict's nodes, in the file's order, and head_node_dict's required key.
void read_nodes(const json& doc, Cluster& c, ConfigErrors& errors) {
  if (!doc.contains("node_dict") || !doc.at("node_dict").is_object() || doc.at("node_dict").empty()) {
    errors.add("node_dict", "No nodes configured in 'node_dict' - at least one node is required");
  } else {
    for (const auto& [name, entry] : doc.at("node_dict").items()) {
      const std::string key = "node_dict." + printable(name);
      if (!entry.is_object()) {
        errors.add(key, "must be an object with a vpc_ip");
        continue;
      }
      // A name or address is printed on every progress line and in every report: one
      // with a control character (an escape sequence) is no host and is refused here.
      auto has_control = [](const std::string& text) {
        return std::any_of(text.begin(), text.end(), [](unsigned char c) { return c < 0x20 || c == 0x7F; });
      };
      if (has_control(name)) errors.add(key, "a node name may not hold control characters");
      Node n{name, "", ""};
      if (!entry.contains("vpc_ip")) errors.add(key + ".vpc_ip", "Field required");
      read_string(entry, "vpc_ip", key, n.vpc_ip, errors);
      read_string(entry, "bmc_ip", key, n.bmc_ip, errors);
      if (has_control(n.vpc_ip)) errors.add(key + ".vpc_ip", "may not hold control characters: " + printable(n.vpc_ip));
      c.nodes.push_back(n);
    }
  }
  if (doc.contains("head_node_dict")) {
    const json& head = doc.at("head_node_dict");
    if (!head.is_object() || !head.contains("mgmt_ip")) errors.add("head_node_dict.mgmt_ip", "Field required");
  }
}

}  // namespace

ClusterLoad load_cluster(const fs::path& file, const std::string& user_id) {
  ClusterLoad result;
  ConfigErrors errors(file.string());
  auto parsed = read_config_json(file, "cluster file", errors);
  if (!parsed) {
    result.errors = errors.list();
    return result;
  }
  json& doc = *parsed;
  resolve_placeholders(doc, {user_id, ""}, errors);
  result.secrets = secret_values(doc);

  Cluster c;
  c.file = file;
  if (!doc.contains("username")) errors.add("username", "Field required");
  read_string(doc, "username", "", c.username, errors);
  find_changeme(doc, "", errors);
  report_unknown_top_level(doc, file, result.warnings);
  read_string(doc, "priv_key_file", "", c.priv_key_file, errors);
  if (doc.contains("password")) {
    read_string(doc, "password", "", c.password, errors);
    c.has_password = true;
  }
  read_access(doc, c, result.secrets, errors);
  read_nodes(doc, c, errors);
  result.errors = errors.list();
  if (result.errors.empty()) result.cluster = std::move(c);
  return result;
}

}  // namespace aorta::config
