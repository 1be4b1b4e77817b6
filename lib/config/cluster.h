// The cluster file (reference §2.2): which nodes, how to reach them, as whom.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config_error.h"

namespace aorta::config {

// local: run on this machine without SSH (the embedded default, or a bare-metal
// single node). ssh: libssh2 to each node.
enum class TransportKind { kLocal, kSsh };

struct Node {
  std::string name;    // node_dict key: host name or address, in rank order
  std::string vpc_ip;  // fabric address; the head's is the default rendezvous address
  std::string bmc_ip;
};

// "ssh": {"jump_host": {...}}: the bastion every node is reached through. Fields
// the file leaves out take the cluster's own values (user, key, port, known_hosts).
struct JumpHost {
  std::string host;
  int port = 22;
  std::string user;
  std::string priv_key_file;
  std::string known_hosts;
};

// The optional "ssh" object of the cluster file.
struct SshSettings {
  int port = 22;
  std::string known_hosts;              // default: ~/.ssh/known_hosts
  bool strict_host_key_checking = true; // false only when the file says so
  int connect_timeout_seconds = 30;
  // The environment variable holding the key's passphrase (the file never holds
  // the passphrase itself); empty: asked on the terminal when the key needs one.
  std::string key_passphrase_env;
  std::string agent_socket;             // empty: $SSH_AUTH_SOCK, as OpenSSH
  std::optional<JumpHost> jump_host;
};

struct Cluster {
  std::filesystem::path file;  // empty for the built-in local cluster
  std::string username;
  std::string priv_key_file;
  bool has_password = false;   // the password itself never leaves the loader's caller
  std::string password;
  TransportKind transport = TransportKind::kSsh;
  SshSettings ssh;
  std::vector<Node> nodes;     // node_dict order; nodes[0] is the head node

  const Node& head() const { return nodes.front(); }
};

struct ClusterLoad {
  std::optional<Cluster> cluster;
  std::vector<ConfigError> errors;
  // Top-level keys neither Aorta nor CVS's shared cluster schema knows: reported, not refused.
  std::vector<ConfigError> warnings;
  // The secret values it holds (secret_values.h) and the key passphrase read from
  // ssh.key_passphrase_env, errors or not.
  std::vector<std::string> secrets;
};

// {user-id} in the file resolves to user_id before validation.
ClusterLoad load_cluster(const std::filesystem::path& file, const std::string& user_id);

// The cluster file's "ssh" block, each key checked and named "ssh.<key>" in errors.
void read_ssh_block(const nlohmann::ordered_json& ssh, SshSettings& out, ConfigErrors& errors);
// Fills the jump host's left-out fields from the cluster (after ~ expansion).
void complete_jump_host(Cluster& c);
// An agent to ask: ssh.agent_socket, or SSH_AUTH_SOCK in the environment.
bool has_agent(const SshSettings& ssh);

// This machine as a one-node cluster, reached without SSH.
Cluster local_cluster(const std::string& user_id);

// "~/x" as OpenSSH reads it: relative to $HOME.
std::string expand_home(const std::string& path);

// The login name for {user-id}: $USER, $LOGNAME, $USERNAME, else root.
std::string current_user_id();

}  // namespace aorta::config
