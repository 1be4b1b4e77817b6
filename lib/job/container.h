// The Aorta container on every node: docker run with the original's flags, the
// running check, and removal. With the none runtime each of these is a no-op and
// commands run on the node itself.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "job/node_exec.h"

namespace aorta::job {

// docker run -d --name <name> <flags> <image> sleep infinity, for one node; the
// supplementary groups are video + group_add + the node's render gid(s).
std::string docker_run_command(const NodeExec& exec, const std::vector<std::string>& groups);

// Replaces any same-named container and starts a fresh one on every node
// (lifetime per_run); on a partial failure the started ones are removed again.
Status launch_containers(NodeExec& exec, const std::vector<std::string>& groups);

// Every node runs the container.
Status verify_containers(NodeExec& exec);

// Removes the per_run container on every node; persistent and no_launch are kept.
Status remove_containers(NodeExec& exec);

}  // namespace aorta::job
