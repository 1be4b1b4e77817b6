#include "agent/agent_fleet.h"

#include <signal.h>

#include <algorithm>
#include <thread>

#include <boost/process.hpp>
#include <fmt/format.h>

#include "agent/agent_transport.h"
#include "common/child_exit.h"

namespace aorta::agent {

namespace bp = boost::process;
using Clock = std::chrono::steady_clock;

struct AgentFleet::Processes {
  std::vector<bp::child> children;  // this node's agent, or the srun step
  std::string what;                 // how to name them in an error
  bool srun = false;                // the child is srun (an agent step), not an agent
};

namespace {

// Waits up to `grace` for the child to end on its own, then ends it: srun by two
// SIGINTs within a second (srun then ends the step, every task with it; agents
// outlive one SIGINT or SIGTERM, see agent_role.cc), an agent by SIGKILL.
void end_child(bp::child& child, std::chrono::seconds grace, bool srun) {
  std::error_code ec;
  if (!child.valid()) return;
  if (grace.count() > 0 && wait_for_exit(child, grace)) return;
  if (srun && child.running(ec)) {
    ::kill(child.id(), SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    ::kill(child.id(), SIGINT);
    if (wait_for_exit(child, std::chrono::seconds(15))) return;
  }
  if (child.running(ec)) child.terminate(ec);
  if (child.running(ec)) child.wait(ec);
}

// The session's handle on the fleet's transport: every call passes through.
class SharedTransport final : public cluster::Transport {
 public:
  explicit SharedTransport(std::shared_ptr<cluster::Transport> to) : to_(std::move(to)) {}
  Result<cluster::CommandResult> run(const std::string& host, const std::string& command,
                                     std::chrono::seconds timeout) override {
    return to_->run(host, command, timeout);
  }
  Status download(const std::string& host, const std::string& remote_path, const std::filesystem::path& local_path,
                  uint64_t max_bytes) override {
    return to_->download(host, remote_path, local_path, max_bytes);
  }
  Result<cluster::StreamResult> stream(const std::string& host, const std::string& command,
                                       const std::filesystem::path& local_path, std::chrono::seconds timeout,
                                       uint64_t max_bytes) override {
    return to_->stream(host, command, local_path, timeout, max_bytes);
  }
  std::vector<Result<cluster::StreamResult>> copy_batch(const std::vector<cluster::CopyJob>& jobs, size_t hosts_at_once,
                                                        size_t streams_per_host, std::chrono::seconds timeout,
                                                        const cluster::CopyDone& done) override {
    return to_->copy_batch(jobs, hosts_at_once, streams_per_host, timeout, done);
  }
  std::vector<Result<cluster::CommandResult>> run_batch(const std::vector<std::string>& hosts,
                                                        const std::vector<std::string>& commands,
                                                        std::chrono::seconds timeout) override {
    return to_->run_batch(hosts, commands, timeout);
  }
  std::vector<Status> upload_batch(const std::vector<cluster::UploadJob>& jobs, size_t hosts_at_once,
                                   std::chrono::seconds timeout) override {
    return to_->upload_batch(jobs, hosts_at_once, timeout);
  }
  Status set_last_will(const std::string& host, const std::string& command) override {
    return to_->set_last_will(host, command);
  }
  bool proves_gone(const Error& error) const override { return to_->proves_gone(error); }
  std::string node_answerer() const override { return to_->node_answerer(); }
  std::string name() const override { return to_->name(); }

 private:
  std::shared_ptr<cluster::Transport> to_;
};

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

}  // namespace

std::vector<std::string> agent_arguments(const FleetPlan& plan, std::optional<int> rank) {
  std::vector<std::string> args = {"agent", "--root", plan.shared_root.string(), "--job", plan.job};
  if (rank) args.insert(args.end(), {"--rank", std::to_string(*rank), "--node", plan.own_node});
  for (const auto& root : plan.allowed_roots) args.insert(args.end(), {"--allow", root.string()});
  return args;
}

AgentFleet::AgentFleet() : processes_(std::make_unique<Processes>()) {}

AgentFleet::~AgentFleet() { finish(); }

Result<std::unique_ptr<AgentFleet>> AgentFleet::start(const FleetPlan& plan, std::ostream& progress) {
  std::unique_ptr<AgentFleet> fleet(new AgentFleet());
  auto meeting = Rendezvous::create(plan.shared_root, plan.job);
  if (!meeting) return meeting.error();
  fleet->meeting_ = std::move(*meeting);
  // Named once made: beside another user's folder of the usual name it is a fresh one.
  progress << "aorta_suite: rendezvous " << fleet->meeting_->folder().string() << "\n" << std::flush;
  std::error_code ec;
  if (plan.slurm_job) {
    // One step, a task per node, beside the job's other steps; this process stays rank 0.
    std::vector<std::string> srun = {"--overlap", "--nodes=" + std::to_string(plan.nodes.size()),
                                     "--ntasks=" + std::to_string(plan.nodes.size()), "--ntasks-per-node=1",
                                     "--nodelist=" + join(plan.nodes, ","), "--kill-on-bad-exit=0",
                                     "--jobid=" + *plan.slurm_job, plan.program.string()};
    for (auto& a : agent_arguments(plan, std::nullopt)) srun.push_back(std::move(a));
    fleet->processes_->what = "the agent step (srun)";
    fleet->processes_->srun = true;
    fleet->processes_->children.emplace_back(bp::search_path("srun"), srun, bp::std_in < bp::null, ec);
  } else {
    fleet->processes_->what = "this node's agent";
    fleet->processes_->children.emplace_back(plan.program.string(), agent_arguments(plan, 0), bp::std_in < bp::null,
                                             ec);
  }
  if (ec) return Error{ErrorCode::kCommandFailed, "cannot start " + fleet->processes_->what + ": " + ec.message(), ""};
  auto published = fleet->meeting_->await(
      plan.nodes.size(), plan.wait,
      [&](size_t ready, size_t of, double elapsed, double left) {
        progress << fmt::format("aorta_suite: agents ready {} of {} ({:.1f} s elapsed, {:.0f} s left)\n", ready, of,
                                elapsed, left)
                 << std::flush;
      },
      [&]() -> std::string {
        auto& child = fleet->processes_->children.front();
        std::error_code running;
        if (child.running(running)) return "";
        return fleet->processes_->what + " ended (exit " + std::to_string(child.exit_code()) +
               ") before every agent published its address; its output above says why";
      });
  if (!published) return published.error();
  std::vector<AgentEndpoint> endpoints;
  for (const auto& p : *published) {
    if (std::find(plan.nodes.begin(), plan.nodes.end(), p.host) == plan.nodes.end())
      return Error{ErrorCode::kInvalidInput,
                   "rank " + std::to_string(p.rank) + "'s agent runs on " + p.host + ", which is not one of the run's "
                   "nodes (" + join(plan.nodes, ", ") + ")",
                   fleet->meeting_->folder().string()};
    endpoints.push_back({p.host, p.address, p.port, p.rank});  // the agent must prove it is this one
  }
  auto transport = AgentTransport::connect(std::move(endpoints), fleet->meeting_->secret(), plan.job);
  if (!transport) return transport.error();
  fleet->transport_ = std::move(*transport);
  return fleet;
}

std::unique_ptr<cluster::Transport> AgentFleet::transport() { return std::make_unique<SharedTransport>(transport_); }

void AgentFleet::finish() {
  if (finished_) return;
  finished_ = true;
  if (transport_) transport_->shutdown();
  // Told: they end on their own. Never connected: nothing of theirs to wait for.
  for (auto& child : processes_->children)
    end_child(child, std::chrono::seconds(transport_ ? 30 : 0), processes_->srun);
  if (meeting_) meeting_->remove();
}

}  // namespace aorta::agent
