// Managed compute as CVS runs it: the run's form from the scheduler and the job's
// variables, a step's other ranks serving agents, and rank 0's agents started and
// reached without SSH or a job step per command.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "agent/agent_fleet.h"
#include "common/result.h"
#include "config/cluster.h"
#include "config/variant.h"
#include "slurm/run_form.h"

namespace aorta::app {

// decide_run_form over this process's environment, asking `spur version` and
// `scontrol version` (10 s each) only inside a job; `cluster_file`: one was given.
Result<slurm::RunForm> run_form_from_environment(bool cluster_file);

// The run folder's name: inside a job, the job's (claimed in the output_dir and, with
// a workspace, its cvs_runs: slurm/run_folder.h); elsewhere empty, for the run id.
Result<std::string> run_folder_name(const slurm::RunForm& form, const std::filesystem::path& output_dir,
                                    const std::filesystem::path& workspace);

// Whether this process serves an agent rather than running the suite (a step's rank
// other than 0): it then writes no report.
bool serves_agent(const slurm::RunForm& form);

// A step's rank other than 0: serves this node's agent until rank 0 is done or gone.
int serve_step_agent(const slurm::RunForm& form, const config::Variant& v);

// Rank 0's agents on every node of the cluster, started as the form says, progress
// on stdout.
Result<std::unique_ptr<agent::AgentFleet>> start_agents(const slurm::RunForm& form, const config::Cluster& cluster,
                                                        const config::Variant& v);

// `aorta_suite agent --root R --job J [--rank N --node H] [--allow P]...`: one node's
// agent, as rank 0 starts it (not a user's command). Rank and node default to the
// step's SLURM_PROCID and SLURMD_NODENAME.
int agent_command(int argc, char** argv);

}  // namespace aorta::app
