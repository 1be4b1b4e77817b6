#include "app/managed_run.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "agent/agent_role.h"
#include "app/exit_codes.h"
#include "slurm/run_folder.h"

namespace aorta::app {

namespace fs = std::filesystem;

namespace {

const char* environment(const char* name) { return std::getenv(name); }

// The rendezvous lives beside aorta_path: the storage the guide already requires
// every node of the job to see at the same path.
fs::path shared_root(const config::Variant& v) { return fs::absolute(v.aorta_path).parent_path(); }

// Agents copy files from below aorta_path only (the traces and analysis reports).
std::vector<fs::path> allowed_roots(const config::Variant& v) { return {fs::absolute(v.aorta_path)}; }

fs::path this_program() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("aorta_suite") : self;
}

}  // namespace

Result<slurm::RunForm> run_form_from_environment(bool cluster_file) {
  return slurm::decide_run_form(environment, slurm::program_answers(), cluster_file);
}

Result<std::string> run_folder_name(const slurm::RunForm& form, const fs::path& output_dir, const fs::path& workspace) {
  if (form.job_id.empty()) return std::string();
  std::vector<fs::path> parents = {fs::absolute(output_dir)};
  if (!workspace.empty()) parents.push_back(workspace / "cvs_runs");
  return slurm::claim_job_run_folder(form.job_id, parents);
}

bool serves_agent(const slurm::RunForm& form) {
  return form.kind == slurm::FormKind::kJobStep && form.job && form.job->rank != 0;
}

int serve_step_agent(const slurm::RunForm& form, const config::Variant& v) {
  agent::AgentRole role;
  role.shared_root = shared_root(v);
  role.job = form.job->id + "." + form.job->step;
  role.rank = form.job->rank;
  role.node_name = form.job->node_name;
  role.allowed_roots = allowed_roots(v);
  return agent::serve_as_agent(role);
}

Result<std::unique_ptr<agent::AgentFleet>> start_agents(const slurm::RunForm& form, const config::Cluster& cluster,
                                                        const config::Variant& v) {
  agent::FleetPlan plan;
  plan.program = this_program();
  plan.shared_root = shared_root(v);
  for (const auto& n : cluster.nodes) plan.nodes.push_back(n.name);
  plan.allowed_roots = allowed_roots(v);
  if (form.kind == slurm::FormKind::kJobStep) {
    plan.job = form.job->id + "." + form.job->step;
    plan.own_node = form.job->node_name;
  } else {
    // Not a step: a name of its own, so a second run in the same allocation is told
    // apart (the node's run lock then refuses it by name).
    plan.job = form.job->id + ".batch-" + std::to_string(::getpid());
    plan.slurm_job = form.job->id;
  }
  std::cout << "aorta_suite: starting " << (plan.slurm_job ? "one agent step (srun, a task per node) on " : "agents on ")
            << plan.nodes.size() << " node(s)\n";
  return agent::AgentFleet::start(plan, std::cout);
}

int agent_command(int argc, char** argv) {
  agent::AgentRole role;
  std::vector<std::string> args(argv + 2, argv + argc);
  const char* rank = std::getenv("SLURM_PROCID");
  const char* node = std::getenv("SLURMD_NODENAME");
  if (rank) role.rank = std::atoi(rank);
  if (node) role.node_name = node;
  for (size_t i = 0; i + 1 < args.size(); i += 2) {
    const std::string& key = args[i];
    const std::string& value = args[i + 1];
    if (key == "--root") role.shared_root = value;
    else if (key == "--job") role.job = value;
    else if (key == "--rank") role.rank = std::atoi(value.c_str());
    else if (key == "--node") role.node_name = value;
    else if (key == "--allow") role.allowed_roots.emplace_back(value);
    else return usage_error("agent: unknown option " + key + " (this command is started by aorta_suite itself)");
  }
  if (role.node_name.empty()) {
    char name[256] = {};
    if (::gethostname(name, sizeof name - 1) == 0) role.node_name = name;
  }
  if (args.size() % 2 || role.shared_root.empty() || role.job.empty() || role.node_name.empty())
    return usage_error("agent: needs --root DIR --job NAME and a node (--node or SLURMD_NODENAME); this command is "
                       "started by aorta_suite itself");
  return agent::serve_as_agent(role);
}

}  // namespace aorta::app
