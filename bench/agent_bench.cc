// What a managed run pays per node command (issue 30): the same small command over
// the node agents, over a job step per command (`srun --overlap`, how managed runs
// worked before the agents) and over SSH, on the same nodes in the same run. Then
// the projection to 256 nodes: the controller creates steps one after another, so a
// round of one command per node costs nodes x the measured per-step cost.
//
// Run inside a Slurm job of the test cluster (bench/agent_bench.sh does it):
//   agent_bench AORTA_SUITE CLUSTER_JSON SHARED_DIR [COMMANDS]   (default 200)
// CLUSTER_JSON: the same nodes over SSH, in the job's node order.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>

#include <fmt/format.h>

#include "agent/agent_fleet.h"
#include "cluster/ssh_transport.h"
#include "config/cluster.h"
#include "slurm/job.h"
#include "srun_transport.h"

namespace {

using namespace aorta;
using Clock = std::chrono::steady_clock;
const std::string kCommand = "echo ok";

struct Figures {
  double serial_ms = 0;  // one command on one node, one after another: mean
  double round_ms = 0;   // one command on every node at once: mean per round
  int failures = 0;
};

// `commands` commands on the second node one by one, then `commands` rounds on every node.
Figures measure(cluster::Transport& t, const std::vector<std::string>& hosts, int commands) {
  Figures f;
  cluster::run_everywhere(t, hosts, kCommand, std::chrono::seconds(60));  // warm: connections made
  auto start = Clock::now();
  for (int i = 0; i < commands; ++i) {
    auto r = t.run(hosts.at(hosts.size() > 1 ? 1 : 0), kCommand, std::chrono::seconds(60));
    f.failures += !(r && r->exit_code == 0 && r->output == "ok\n");
  }
  f.serial_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count() / commands;
  start = Clock::now();
  for (int i = 0; i < commands; ++i)
    f.failures += static_cast<int>(!cluster::all_succeeded(cluster::run_everywhere(t, hosts, kCommand,
                                                                                    std::chrono::seconds(60))));
  f.round_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count() / commands;
  return f;
}

std::unique_ptr<cluster::Transport> ssh_transport(const config::Cluster& c) {
  cluster::SshOptions ssh;
  ssh.user = c.username;
  ssh.private_key = c.priv_key_file;
  ssh.port = c.ssh.port;
  ssh.known_hosts = c.ssh.known_hosts;
  ssh.check_host_key = c.ssh.strict_host_key_checking;
  auto t = cluster::SshTransport::create(std::move(ssh));
  if (!t) throw std::runtime_error(t.error().describe());
  return std::move(*t);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: agent_bench AORTA_SUITE CLUSTER_JSON SHARED_DIR [COMMANDS]\n";
    return 2;
  }
  const int commands = argc > 4 ? std::max(1, std::atoi(argv[4])) : 200;
  auto job = slurm::job_from_environment([](const char* n) -> const char* { return std::getenv(n); });
  if (!job || !*job) {
    std::cerr << "agent_bench: run inside a Slurm job (bench/agent_bench.sh)\n";
    return 2;
  }
  auto loaded = config::load_cluster(argv[2], "root");
  if (!loaded.cluster || !loaded.errors.empty()) {
    std::cerr << "agent_bench: " << argv[2] << " does not load\n";
    return 2;
  }
  std::vector<std::string> ssh_hosts;
  for (const auto& n : loaded.cluster->nodes) ssh_hosts.push_back(n.name);
  const auto& nodes = (*job)->nodes;

  agent::FleetPlan plan{.program = argv[1], .shared_root = argv[3], .job = (*job)->id + ".bench",
                        .nodes = nodes, .allowed_roots = {argv[3]}, .slurm_job = (*job)->id};
  auto fleet = agent::AgentFleet::start(plan, std::cout);
  if (!fleet) {
    std::cerr << "agent_bench: " << fleet.error().describe() << "\n";
    return 1;
  }
  auto agents = (*fleet)->transport();
  cluster::SrunTransport steps((*job)->id);
  auto ssh = ssh_transport(*loaded.cluster);

  std::cout << fmt::format("{} commands ('{}') on {} node(s), each form in this run\n", commands, kCommand,
                           nodes.size());
  Figures a = measure(*agents, nodes, commands);
  Figures s = measure(steps, nodes, commands);
  Figures h = measure(*ssh, ssh_hosts, commands);
  std::cout << fmt::format("{:<28} {:>14} {:>22} {:>9}\n", "transport", "ms/command", "ms/round (all nodes)",
                           "failures");
  for (const auto& [name, f] : {std::pair{"agents", a}, {"srun --overlap step", s}, {"ssh (kept connections)", h}})
    std::cout << fmt::format("{:<28} {:>14.3f} {:>22.3f} {:>9}\n", name, f.serial_ms, f.round_ms, f.failures);
  std::cout << fmt::format("steps / agents: {:.0f}x per command, {:.0f}x per round; ssh / agents: {:.1f}x per command\n",
                           s.serial_ms / a.serial_ms, s.round_ms / a.round_ms, h.serial_ms / a.serial_ms);
  // The controller creates steps one after another: a round on 256 nodes is 256 steps.
  std::cout << fmt::format("projection to 256 nodes, one round (a poll of the training): steps {:.1f} s "
                           "(256 x {:.1f} ms); agents {:.1f} ms at most (256 x {:.3f} ms, one after another)\n",
                           256 * s.serial_ms / 1000, s.serial_ms, 256 * a.serial_ms, a.serial_ms);
  (*fleet)->finish();
  return a.failures + s.failures + h.failures ? 1 : 0;
}
