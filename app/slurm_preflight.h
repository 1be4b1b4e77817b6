// Before anything runs in a Slurm job: GPUs per node against GRES, the time limit
// against the run's worst case, and the files every node must see at the same path.
#pragma once

#include <string>

#include "config/cluster.h"
#include "config/variant.h"
#include "slurm/job.h"

namespace aorta::app {

// kExitOk, or the exit status of a usage error already reported.
int check_slurm_job(const slurm::SlurmJob& job, const config::Cluster& cluster, const config::Variant& v,
                    const std::string& config_file);

}  // namespace aorta::app
