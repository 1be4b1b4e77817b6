// Before anything runs in a Slurm job: GPUs per node against GRES, the time limit
// against the run's worst case, and the files every node must see at the same path.
#pragma once

#include <optional>
#include <string>

#include "cluster/transport.h"
#include "config/cluster.h"
#include "config/variant.h"
#include "slurm/job.h"

namespace aorta::app {

// Why the run cannot start in this job (the caller reports it and exits 2), or
// nothing. The files are looked for on every node through `transport` (the agents).
std::optional<std::string> slurm_job_problem(const slurm::SlurmJob& job, const config::Cluster& cluster,
                                             const config::Variant& v, const std::string& config_file,
                                             cluster::Transport& transport);

}  // namespace aorta::app
