#include "slurm/run_form.h"

#include <unistd.h>

#include "cluster/local_transport.h"
#include "common/shell_quote.h"
#include "slurm/hostlist.h"

namespace aorta::slurm {

namespace {

std::string var(const Getenv& getenv, const char* name) {
  const char* v = getenv(name);
  return v ? v : "";
}

// A whole non-negative decimal number, or nullopt.
std::optional<long> count(const std::string& text) {
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stol(text);
}

std::string this_host() {
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 ? name : "";
}

// The step's task: its rank, node, and nodes (one task each).
Result<SlurmJob> step_task(SlurmJob job, const Getenv& getenv, Scheduler scheduler) {
  job.step = var(getenv, "SLURM_STEP_ID");
  auto rank = count(var(getenv, "SLURM_PROCID"));
  if (!rank) return Error{ErrorCode::kInvalidInput, "SLURM_PROCID is not a task rank: '" + var(getenv, "SLURM_PROCID") + "'", "SLURM_PROCID"};
  job.rank = static_cast<int>(*rank);
  job.node_name = var(getenv, "SLURMD_NODENAME");
  if (job.node_name.empty()) job.node_name = this_host();
  const char* list_name = scheduler == Scheduler::kSpur ? "SPUR_NODES" : "SLURM_STEP_NODELIST";
  if (std::string list = var(getenv, list_name); !list.empty()) {
    auto nodes = expand_hostlist(list);
    if (!nodes) return Error{ErrorCode::kInvalidInput, nodes.error().message, list_name};
    job.nodes = *nodes;
  } else if (scheduler == Scheduler::kSpur) {
    return Error{ErrorCode::kInvalidInput, "a SPUR job step without SPUR_NODES", "SPUR_NODES"};
  }
  auto tasks = count(var(getenv, "SLURM_STEP_NUM_TASKS"));
  if (!tasks) tasks = count(var(getenv, "SLURM_NTASKS"));
  if (tasks && static_cast<size_t>(*tasks) != job.nodes.size())
    return Error{ErrorCode::kInvalidInput,
                 "job " + job.id + " step " + job.step + " has " + std::to_string(*tasks) + " task(s) on " +
                     std::to_string(job.nodes.size()) + " node(s); run one task per node: srun -N" +
                     std::to_string(job.nodes.size()) + " --ntasks-per-node=1 aorta_suite ...",
                 "SLURM_STEP_NUM_TASKS"};
  if (*rank >= static_cast<long>(job.nodes.size()))
    return Error{ErrorCode::kInvalidInput,
                 "SLURM_PROCID " + std::to_string(*rank) + " is past the step's " + std::to_string(job.nodes.size()) +
                     " node(s)",
                 "SLURM_PROCID"};
  return job;
}

}  // namespace

Answers program_answers() {
  return [](const std::vector<std::string>& argv) {
    std::string command;
    for (const auto& a : argv) command += (command.empty() ? "" : " ") + shell_quote(a);
    cluster::LocalTransport local;
    auto r = local.run("localhost", "command -v " + shell_quote(argv.front()) + " >/dev/null && " + command + " >/dev/null",
                       std::chrono::seconds(10));
    return r && r->exit_code == 0;
  };
}

std::string scheduler_name(Scheduler s) {
  switch (s) {
    case Scheduler::kSpur: return "SPUR";
    case Scheduler::kSlurm: return "Slurm";
    case Scheduler::kBareMetal: break;
  }
  return "bare metal";
}

Result<std::pair<Scheduler, std::string>> detect_scheduler(const Getenv& getenv, const Answers& answers) {
  if (const char* forced = getenv("CVS_SCHEDULER"); forced && *forced) {
    std::string v = forced;
    if (v == "spur") return std::pair{Scheduler::kSpur, std::string("CVS_SCHEDULER=spur")};
    if (v == "slurm") return std::pair{Scheduler::kSlurm, std::string("CVS_SCHEDULER=slurm")};
    if (v == "bare_metal") return std::pair{Scheduler::kBareMetal, std::string("CVS_SCHEDULER=bare_metal")};
    return Error{ErrorCode::kInvalidInput, "CVS_SCHEDULER must be spur, slurm or bare_metal, not '" + v + "'",
                 "CVS_SCHEDULER"};
  }
  if (answers({"spur", "version"})) return std::pair{Scheduler::kSpur, std::string("`spur version` answers")};
  if (answers({"scontrol", "version"})) return std::pair{Scheduler::kSlurm, std::string("`scontrol version` answers")};
  return std::pair{Scheduler::kBareMetal, std::string("neither `spur version` nor `scontrol version` answers")};
}

Result<RunForm> decide_run_form(const Getenv& getenv, const Answers& answers, bool cluster_file) {
  RunForm form;
  const bool forced = getenv("CVS_SCHEDULER") && *getenv("CVS_SCHEDULER");
  if (var(getenv, "SLURM_JOB_ID").empty()) {
    if (forced) {
      auto s = detect_scheduler(getenv, answers);  // a bad value is an error wherever it is set
      if (!s) return s.error();
    }
    form.reason = "no SLURM_JOB_ID: not inside a job, nodes from --cluster_file (or this machine)";
    return form;
  }
  auto scheduler = detect_scheduler(getenv, answers);
  if (!scheduler) return scheduler.error();
  form.scheduler = scheduler->first;
  if (form.scheduler == Scheduler::kBareMetal) {
    form.reason = "SLURM_JOB_ID is set but the scheduler is bare metal (" + scheduler->second +
                  "): nodes from --cluster_file (or this machine), over SSH";
    return form;
  }
  const std::string by = scheduler_name(form.scheduler) + " (" + scheduler->second + ")";
  const bool step = !var(getenv, "SLURM_STEP_ID").empty() && !var(getenv, "SLURM_PROCID").empty();
  if (!step && cluster_file) {
    auto id = job_id_from_environment(getenv);
    if (!id) return id.error();
    form.job_id = *id;
    form.reason = "inside " + by + " job " + form.job_id + " but not a job step (no SLURM_STEP_ID), with "
                  "--cluster_file: over SSH to the cluster file's nodes, as CVS runs it";
    return form;
  }
  auto job = job_from_environment(getenv);
  if (!job) return job.error();
  form.job = **job;
  form.job_id = form.job->id;
  if (step) {
    auto task = step_task(*form.job, getenv, form.scheduler);
    if (!task) return task.error();
    form.job = *task;
    form.kind = FormKind::kJobStep;
    form.reason = "a task of " + by + " job " + form.job->id + " step " + form.job->step + " (SLURM_JOB_ID, "
                  "SLURM_STEP_ID and SLURM_PROCID set): rank " + std::to_string(form.job->rank) + " of " +
                  std::to_string(form.job->nodes.size()) + (form.job->rank == 0 ? ", runs the suite" : ", serves an agent");
    return form;
  }
  form.kind = FormKind::kAllocation;
  form.reason = "inside " + by + " job " + form.job->id + " but not a job step (no SLURM_STEP_ID): one agent step "
                "is started on the job's nodes, with no SSH";
  return form;
}

}  // namespace aorta::slurm
