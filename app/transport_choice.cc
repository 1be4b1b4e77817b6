#include "app/transport_choice.h"

#include "cluster/local_transport.h"
#include "cluster/ssh_transport.h"

namespace aorta::app {

Result<std::unique_ptr<cluster::Transport>> make_transport(const config::Cluster& c) {
  if (c.transport == config::TransportKind::kLocal) return std::unique_ptr<cluster::Transport>(new cluster::LocalTransport);
  cluster::SshOptions ssh;
  ssh.user = c.username;
  ssh.private_key = c.priv_key_file;
  ssh.password = c.password;
  ssh.port = c.ssh.port;
  ssh.known_hosts = c.ssh.known_hosts;
  ssh.check_host_key = c.ssh.strict_host_key_checking;
  ssh.connect_timeout = std::chrono::seconds(c.ssh.connect_timeout_seconds);
  ssh.key_passphrase_env = c.ssh.key_passphrase_env;
  ssh.agent_socket = c.ssh.agent_socket;
  if (c.ssh.jump_host)
    ssh.jump = cluster::SshJumpOptions{c.ssh.jump_host->host, c.ssh.jump_host->port, c.ssh.jump_host->user,
                                       c.ssh.jump_host->priv_key_file, c.ssh.jump_host->known_hosts, ""};
  auto t = cluster::SshTransport::create(std::move(ssh));
  if (!t) return Error{t.error().code, t.error().message, c.file.string()};
  return std::unique_ptr<cluster::Transport>(std::move(*t));
}

}  // namespace aorta::app
