// Which form a run takes, by CVS's rules for managed compute: the scheduler
// (CVS_SCHEDULER, else SPUR before Slurm), and whether this process is a job step.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "slurm/job.h"

namespace aorta::slurm {

enum class Scheduler { kBareMetal, kSlurm, kSpur };
std::string scheduler_name(Scheduler s);

enum class FormKind {
  kPlain,       // SSH (or this machine): no job, CVS_SCHEDULER=bare_metal, or a job without a step given a cluster file
  kJobStep,     // a task of a job step: rank 0 runs the suite, every other rank serves an agent
  kAllocation,  // inside a job but not a step (sbatch script, salloc shell): one agent step is started
};

struct RunForm {
  FormKind kind = FormKind::kPlain;
  Scheduler scheduler = Scheduler::kBareMetal;
  std::optional<SlurmJob> job;  // set for kJobStep and kAllocation
  // The SPUR or Slurm job this run is inside, in every form but bare metal: it names
  // the run folder, as CVS names it (slurm/run_folder.h). Empty outside a job.
  std::string job_id;
  std::string reason;           // the one line printed at start: the decision and why
};

// Whether a program answers (exit 0), e.g. {"spur", "version"}.
using Answers = std::function<bool(const std::vector<std::string>& argv)>;

// Runs the program on this machine (found on PATH, 10 s at most): whether it exits 0.
Answers program_answers();

// The scheduler: CVS_SCHEDULER when set (spur, slurm or bare_metal, else an error
// naming it), else SPUR when `spur version` answers, else Slurm when `scontrol
// version` does, else bare metal. The second is why, in words.
Result<std::pair<Scheduler, std::string>> detect_scheduler(const Getenv& getenv, const Answers& answers);

// The run's form. Outside any job nothing is asked of the scheduler's programs.
// A step (SLURM_JOB_ID, SLURM_STEP_ID and SLURM_PROCID all set; SPUR exports the
// same names) must have one task per node; its nodes are SPUR_NODES under SPUR, else
// the step's node list. Inside a job but not a step, a cluster file (`cluster_file`)
// makes it an SSH run of the file's nodes, as CVS runs it; without one, one agent step
// is started on the job's nodes.
Result<RunForm> decide_run_form(const Getenv& getenv, const Answers& answers, bool cluster_file);

}  // namespace aorta::slurm
