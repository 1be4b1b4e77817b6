#include "app/slurm_preflight.h"

#include <filesystem>
#include <iostream>

#include "cluster/local_transport.h"
#include "common/shell_quote.h"

namespace aorta::app {

std::optional<std::string> slurm_job_problem(const slurm::SlurmJob& job, const config::Cluster& cluster,
                                             const config::Variant& v, const std::string& config_file,
                                             cluster::Transport& transport) {
  std::cout << "aorta_suite: inside Slurm job " << job.id << " on " << cluster.nodes.size()
            << " node(s); commands go through agents, no SSH and no job step per command\n";
  if (!job.gpus_per_node)
    std::cout << "aorta_suite: the job requested no GPUs through GRES, so GPUs per node cannot be checked; "
                 "using gpus_per_node "
              << v.gpus_per_node << " from the config\n";
  else if (*job.gpus_per_node < v.gpus_per_node)
    return std::string("Slurm job " + job.id + " has " + std::to_string(*job.gpus_per_node) +
                       " GPU(s) per node, the config needs gpus_per_node " + std::to_string(v.gpus_per_node));
  cluster::LocalTransport local;
  auto left = local.run("localhost", "squeue -h -j " + shell_quote(job.id) + " -o %L", std::chrono::seconds(30));
  if (auto seconds = left && left->exit_code == 0 ? slurm::parse_time_left(left->output) : std::nullopt) {
    long needed = v.timeout_seconds + 300 + (v.skip_rccl_build ? 0 : v.timeout_seconds);
    if (*seconds < needed)
      std::cout << "aorta_suite: WARNING: Slurm job " << job.id << " has " << *seconds
                << " s left, less than timeout_seconds plus container launch" << (v.skip_rccl_build ? "" : " and RCCL build")
                << " (" << needed << " s); the scheduler may end the run before teardown\n";
  }
  // aorta_path's folder is shared already: every agent found the secret rank 0 wrote there.
  std::string check;
  for (const auto& path :
       {std::filesystem::absolute(config_file).string(), std::filesystem::absolute(v.threshold_file).string()})
    check += (check.empty() ? "" : "; ") + std::string("test -e ") + shell_quote(path) + " || echo " + shell_quote(path);
  std::vector<std::string> hosts;
  for (const auto& n : cluster.nodes) hosts.push_back(n.name);
  std::string missing;
  for (const auto& r : cluster::run_everywhere(transport, hosts, check, std::chrono::seconds(120))) {
    if (!r.result) missing += "\n  " + r.host + ": " + r.result.error().message;
    else if (!r.result->output.empty()) missing += "\n  " + r.host + " cannot see: " + r.result->output;
  }
  if (!missing.empty())
    return std::string("the config file, its threshold file and aorta_path's folder must be on storage every node "
                       "of the job sees at the same path:" + missing);
  return std::nullopt;
}

}  // namespace aorta::app
