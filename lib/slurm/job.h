// The Slurm allocation this process runs in, and the cluster it gives the suite:
// the job's nodes in order, each node's hostname as its fabric address (so the
// rendezvous uses the first node's hostname).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "config/cluster.h"

namespace aorta::slurm {

struct SlurmJob {
  std::string id = {};
  std::vector<std::string> nodes = {};  // SLURM_JOB_NODELIST, expanded, in order
  std::optional<int> gpus_per_node = {};  // from GRES (SLURM_GPUS_ON_NODE / SLURM_JOB_GPUS); unknown without
  // In a job step (SLURM_STEP_ID set): the step, this task's rank and node name.
  std::string step = {};
  int rank = 0;
  std::string node_name = {};  // SLURMD_NODENAME, else this machine's hostname
};

using Getenv = std::function<const char*(const char*)>;

// SLURM_JOB_ID, checked: empty outside a job; an error naming the variable unless it
// is 1 to 64 letters, digits, '.', '_' or '-' starting with a letter or digit (Slurm
// sets digits), since it names folders (the run's, the agents').
Result<std::string> job_id_from_environment(const Getenv& getenv);

// nullopt outside a job (no SLURM_JOB_ID); an error when the job id is not one (see
// job_id_from_environment) or the job's node list is missing or cannot be expanded.
Result<std::optional<SlurmJob>> job_from_environment(const Getenv& getenv);

// The job's cluster. With a cluster file, its nodes are kept (with their vpc_ip) and
// each must be one of the job's; a node outside the job is an error naming it.
Result<config::Cluster> cluster_from_job(const SlurmJob& job, const std::string& user,
                                         const config::Cluster* cluster_file);

// squeue's %L (time left): "D-HH:MM:SS", "HH:MM:SS" or "MM:SS" in seconds;
// nullopt for UNLIMITED, NOT_SET or anything else.
std::optional<long> parse_time_left(const std::string& text);

}  // namespace aorta::slurm
