#include "app/slurm_preflight.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "cluster/local_transport.h"
#include "cluster/srun_transport.h"
#include "common/shell_quote.h"

namespace aorta::app {

std::optional<std::string> slurm_job_problem(const slurm::SlurmJob& job, const config::Cluster& cluster, const config::Variant& v,
                    const std::string& config_file) {
  std::cout << "aorta_suite: inside Slurm job " << job.id << " on " << cluster.nodes.size()
            << " node(s); commands go through srun\n";
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
  cluster::SrunTransport srun(job.id);
  // aorta_path may not exist yet: a marker written here beside it must be visible on
  // every node, which proves the storage is shared (a path that merely exists
  // everywhere, like /tmp, would not).
  std::filesystem::path marker = std::filesystem::path(v.aorta_path).parent_path() / (".aorta_suite_shared_" + job.id);
  std::error_code ec;
  // Private from the start (the working folder's rule), and the marker is a new file:
  // O_EXCL|O_NOFOLLOW never writes through a link someone planted at its name.
  mode_t old_mask = ::umask(077);
  std::filesystem::create_directories(marker.parent_path(), ec);
  ::umask(old_mask);
  int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return std::string("cannot create " + marker.string() + " (" + std::strerror(errno) +
                       "): aorta_path's folder must be yours and hold no such file");
  static constexpr char kText[] = "written by aorta_suite on the job's first node\n";
  bool written = ::write(fd, kText, sizeof kText - 1) == static_cast<ssize_t>(sizeof kText - 1);
  ::close(fd);
  struct RemoveMarker {
    std::filesystem::path path;
    ~RemoveMarker() { std::error_code ignored; std::filesystem::remove(path, ignored); }
  } remove_marker{marker};
  if (!written) return std::string("cannot write " + marker.string() + ": " + std::strerror(errno));
  std::string check;
  for (const auto& path : {std::filesystem::absolute(config_file).string(), std::filesystem::absolute(v.threshold_file).string(),
                           marker.string()})
    check += (check.empty() ? "" : "; ") + std::string("test -e ") + shell_quote(path) + " || echo " + shell_quote(path);
  std::vector<std::string> hosts;
  for (const auto& n : cluster.nodes) hosts.push_back(n.name);
  std::string missing;
  for (const auto& r : cluster::run_everywhere(srun, hosts, check, std::chrono::seconds(120))) {
    if (!r.result) missing += "\n  " + r.host + ": " + r.result.error().message;
    else if (!r.result->output.empty()) missing += "\n  " + r.host + " cannot see: " + r.result->output;
  }
  if (!missing.empty())
    return std::string("the config file, its threshold file and aorta_path's folder must be on storage every node "
                       "of the job sees at the same path:" + missing);
  return std::nullopt;
}

}  // namespace aorta::app
