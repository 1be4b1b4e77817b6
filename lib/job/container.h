// The Aorta container on every node: docker run with the original's default flags,
// the per-node docker access probe (sudo -n), the pull, the lifetime rules
// (per_run, persistent, no_launch), the running check, and removal. With the none
// runtime each of these is a no-op and commands run on the node itself.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "config/variant.h"
#include "job/node_exec.h"

namespace aorta::job {

// What docker run needs beyond the variant, for one node.
struct LaunchSpec {
  std::string docker = "docker";      // shell text: "docker" or "sudo -n docker"
  std::vector<std::string> groups;    // video + group_add + the node's render gid(s)
  std::string ssh_dir;                // mounted at /host_ssh when the node has it
  // Devices the original always adds; each is passed only where the node has it
  // (a glob expands on the node: its InfiniBand devices).
  std::vector<std::string> default_devices = {"/dev/kfd", "/dev/dri", "/dev/infiniband/*"};
};

// The shell command for docker run -d --name <name> <flags> <image> sleep infinity:
// the original's defaults (.ssh mount, GPUS/MULTINODE env, kfd/dri/InfiniBand
// devices, SYS_PTRACE/IPC_LOCK/SYS_ADMIN, seccomp/apparmor unconfined, memlock
// ulimit) with the configured values added; a configured value of the same name
// (env key, security-opt or ulimit name, /host_ssh target) replaces the default.
// Every value is one quoted argument.
std::string docker_run_command(const config::Variant& v, const std::string& name, const LaunchSpec& spec);

// Once per run: on each node, docker as the user, else sudo -n docker; a node where
// neither reaches the daemon is an error naming it. Fills exec's docker commands.
Status probe_docker_access(NodeExec& exec);

// per_run: replaces any same-named container and starts a fresh one on every node.
// persistent: attaches where it runs on every node, starts it where it runs on
// none, and fails naming the nodes that lack it when it runs on only some.
// no_launch: nothing. The image is pulled where a node lacks it, after a login to the
// configured registry there (registry_login.h); a partial start is removed again.
Status launch_containers(NodeExec& exec, const std::vector<std::string>& groups);

// Every node runs the container.
Status verify_containers(NodeExec& exec);

// Removes the per_run container on hosts (all when empty); persistent and
// no_launch are kept. failed_hosts gets the hosts where removal failed.
Status remove_containers(NodeExec& exec, const std::vector<std::string>& hosts = {},
                         std::vector<std::string>* failed_hosts = nullptr);

}  // namespace aorta::job
