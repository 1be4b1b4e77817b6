// How the run reaches its nodes: srun inside a Slurm job, local processes for the
// built-in local cluster, libssh2 for a cluster file's nodes.
#pragma once

#include <memory>
#include <optional>

#include "cluster/transport.h"
#include "common/result.h"
#include "config/cluster.h"
#include "slurm/job.h"

namespace aorta::app {

Result<std::unique_ptr<cluster::Transport>> make_transport(const config::Cluster& c,
                                                           const std::optional<slurm::SlurmJob>& job);

}  // namespace aorta::app
