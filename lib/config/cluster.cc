#include "config/cluster.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "config/json_fields.h"
#include "config/json_file.h"
#include "config/placeholders.h"

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

  Cluster c;
  c.file = file;
  if (!doc.contains("username")) errors.add("username", "Field required");
  read_string(doc, "username", "", c.username, errors);
  std::string lower_user = c.username;
  std::transform(lower_user.begin(), lower_user.end(), lower_user.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (lower_user.find("<changeme>") != std::string::npos)  // any case, as the variant check (<ChangeMe> too)
    errors.add("username", "Unresolved configuration placeholder: '" + c.username + "'");
  read_string(doc, "priv_key_file", "", c.priv_key_file, errors);
  if (doc.contains("password")) {
    read_string(doc, "password", "", c.password, errors);
    c.has_password = true;
  }
  std::string transport = "ssh";
  read_string(doc, "transport", "", transport, errors);
  if (transport == "local") {
    c.transport = TransportKind::kLocal;
  } else if (transport != "ssh") {
    errors.add("transport", "must be ssh or local, got '" + transport + "'");
  }
  if (doc.contains("ssh")) {
    const json& ssh = doc.at("ssh");
    if (!ssh.is_object()) {
      errors.add("ssh", "must be an object");
    } else {
      read_int(ssh, "port", "ssh", c.ssh.port, errors);
      read_string(ssh, "known_hosts", "ssh", c.ssh.known_hosts, errors);
      read_bool(ssh, "strict_host_key_checking", "ssh", c.ssh.strict_host_key_checking, errors);
      read_int(ssh, "connect_timeout_seconds", "ssh", c.ssh.connect_timeout_seconds, errors);
      if (c.ssh.port < 1 || c.ssh.port > 65535) errors.add("ssh.port", "must be between 1 and 65535");
      if (c.ssh.connect_timeout_seconds < 1) errors.add("ssh.connect_timeout_seconds", "must be at least 1");
      reject_unknown_keys(ssh, "ssh", {"port", "known_hosts", "strict_host_key_checking", "connect_timeout_seconds"},
                          errors);
    }
  }
  c.priv_key_file = expand_home(c.priv_key_file);
  c.ssh.known_hosts = expand_home(c.ssh.known_hosts.empty() ? "~/.ssh/known_hosts" : c.ssh.known_hosts);
  if (c.transport == TransportKind::kSsh && c.priv_key_file.empty() && !c.has_password)
    errors.add("", "Authentication required: provide either 'priv_key_file' or 'password' in cluster config");

  if (!doc.contains("node_dict") || !doc.at("node_dict").is_object() || doc.at("node_dict").empty()) {
    errors.add("node_dict", "No nodes configured in 'node_dict' - at least one node is required");
  } else {
    for (const auto& [name, entry] : doc.at("node_dict").items()) {
      std::string key = "node_dict." + name;
      if (!entry.is_object()) {
        errors.add(key, "must be an object with a vpc_ip");
        continue;
      }
      Node n{name, "", ""};
      if (!entry.contains("vpc_ip")) errors.add(key + ".vpc_ip", "Field required");
      read_string(entry, "vpc_ip", key, n.vpc_ip, errors);
      read_string(entry, "bmc_ip", key, n.bmc_ip, errors);
      c.nodes.push_back(n);
    }
  }
  if (doc.contains("head_node_dict")) {
    const json& head = doc.at("head_node_dict");
    if (!head.is_object() || !head.contains("mgmt_ip")) errors.add("head_node_dict.mgmt_ip", "Field required");
  }
  result.errors = errors.list();
  if (result.errors.empty()) result.cluster = std::move(c);
  return result;
}

}  // namespace aorta::config
