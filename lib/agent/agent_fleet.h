// Rank 0's side of a managed run: the agents it starts (its own node's, or one
// srun step with a task per node), the wait for every agent to publish its address,
// and the transport over them. Never a job step per command.
#pragma once

#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "agent/rendezvous.h"
#include "cluster/transport.h"
#include "common/result.h"

namespace aorta::agent {

class AgentTransport;

struct FleetPlan {
  std::filesystem::path program = {};      // aorta_suite, whose `agent` command serves a node
  std::filesystem::path shared_root = {};  // storage every node sees
  std::string job = {};                    // the rendezvous's name
  std::vector<std::string> nodes = {};     // the run's nodes, as the job names them
  std::vector<std::filesystem::path> allowed_roots = {};
  // Set: start one srun step (--overlap, a task per node) in this Slurm job. Unset:
  // the caller is rank 0 of a step whose other tasks already serve; only this node's
  // agent is started, as a child process (it outlives a killed rank 0 long enough to
  // end what it started).
  std::optional<std::string> slurm_job = {};
  std::string own_node = {};               // this node's name (unset slurm_job)
  std::chrono::seconds wait{60};      // for every agent to publish
};

class AgentFleet {
 public:
  // The agents started and connected, progress printed one line per change; an error
  // names the ranks or nodes missing and what to check.
  static Result<std::unique_ptr<AgentFleet>> start(const FleetPlan& plan, std::ostream& progress);
  // The transport over every node, for the session; the fleet shares it, to end it.
  std::unique_ptr<cluster::Transport> transport();
  // The run is done: agents told, the processes started here waited for (ended after
  // a grace), the rendezvous removed. Called again, nothing.
  void finish();
  ~AgentFleet();

 private:
  struct Processes;
  AgentFleet();
  std::unique_ptr<Processes> processes_;
  std::optional<Rendezvous> meeting_;
  std::shared_ptr<AgentTransport> transport_;
  bool finished_ = false;
};

// The command line of one agent: `<program> agent --root R --job J [--rank N --node H] --allow P...`.
std::vector<std::string> agent_arguments(const FleetPlan& plan, std::optional<int> rank);

}  // namespace aorta::agent
