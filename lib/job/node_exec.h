// Commands on the run's nodes, on the host or inside the Aorta container (docker
// exec), with the host/container path mapping. Everything above this file speaks in
// node-side paths and never builds docker command lines itself.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/transport.h"
#include "config/cluster.h"
#include "config/variant.h"

namespace aorta::job {

using cluster::HostResult;

class NodeExec {
 public:
  NodeExec(cluster::Transport& transport, const config::Variant& variant, const config::Cluster& cluster);

  const std::vector<std::string>& hosts() const { return hosts_; }
  const config::Variant& variant() const { return variant_; }
  const config::Cluster& cluster() const { return cluster_; }
  cluster::Transport& transport() { return transport_; }
  // The container name: configured, else <user>_<image with [^A-Za-z0-9_] as _>.
  std::string container_name() const;

  // The same command on the physical hosts.
  std::vector<HostResult> on_hosts(const std::string& command, std::chrono::seconds timeout);
  // Inside the container on every host (or directly, with the none runtime).
  std::vector<HostResult> in_containers(const std::string& command, std::chrono::seconds timeout);
  // Inside the container on hosts()[node] only.
  HostResult in_container(size_t node, const std::string& command, std::chrono::seconds timeout);
  // commands[i] inside the container on hosts()[i].
  std::vector<HostResult> in_containers_each(const std::vector<std::string>& commands,
                                             std::chrono::seconds timeout);
  // The host path of a node-side path under the repository mount.
  std::string host_path(const std::string& node_path) const;

  // How each host runs docker: "docker", or "sudo -n docker" where the user cannot
  // reach the daemon (probed once per run by job/container.cc); every docker
  // command on that host, docker exec included, uses the same one.
  const std::string& docker(const std::string& host) const;
  void set_docker(const std::string& host, std::string command) { docker_[host] = std::move(command); }
  bool docker_probed() const { return !docker_.empty(); }

  // The command line that runs `command` inside host's container (itself with the
  // none runtime).
  std::string wrap(const std::string& host, const std::string& command) const;

 private:
  cluster::Transport& transport_;
  const config::Variant& variant_;
  const config::Cluster& cluster_;
  std::vector<std::string> hosts_;
  std::map<std::string, std::string> docker_;
};

// The rest of the last line of a node command's output that starts with `marker`:
// how a node script reports back among whatever else it printed.
std::optional<std::string> marked_line(const std::string& output, const std::string& marker);

}  // namespace aorta::job
