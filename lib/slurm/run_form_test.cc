#include "slurm/run_form.h"

#include <map>

#include <gtest/gtest.h>
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::slurm {
namespace {

using Vars = std::map<std::string, std::string>;

Getenv env(Vars vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

// Which programs answer, and which were asked.
struct Programs {
  bool spur = false, scontrol = true;
  std::vector<std::string> asked;
  Answers answers() {
    return [this](const std::vector<std::string>& argv) {
      asked.push_back(argv.front());
      return argv.front() == "spur" ? spur : argv.front() == "scontrol" && scontrol;
    };
  }
};

const Vars kStep = {{"SLURM_JOB_ID", "42"},       {"SLURM_STEP_ID", "0"},        {"SLURM_PROCID", "1"},
                    {"SLURM_JOB_NODELIST", "n[1-3]"}, {"SLURM_STEP_NODELIST", "n[1-2]"}, {"SLURM_STEP_NUM_TASKS", "2"},
                    {"SLURMD_NODENAME", "n2"}};

Vars with(Vars v, const Vars& more) {
  for (const auto& [k, x] : more) v[k] = x;
  return v;
}

TEST(RunForm, OutsideAJobIsPlainAndAsksNoProgram) {
  Programs p;
  auto form = decide_run_form(env({{"SLURM_PROCID", "0"}}), p.answers(), false);
  ASSERT_TRUE(form.ok());
  EXPECT_EQ(form->kind, FormKind::kPlain);
  EXPECT_TRUE(p.asked.empty());
}

TEST(RunForm, AStepTaskIsManagedWithItsRankAndTheStepsNodes) {
  Programs p;
  auto form = decide_run_form(env(kStep), p.answers(), false);
  ASSERT_TRUE(form.ok()) << form.error().describe();
  EXPECT_EQ(form->kind, FormKind::kJobStep);
  EXPECT_EQ(form->scheduler, Scheduler::kSlurm);
  EXPECT_EQ(form->job->id, "42");
  EXPECT_EQ(form->job->step, "0");
  EXPECT_EQ(form->job->rank, 1);
  EXPECT_EQ(form->job->node_name, "n2");
  EXPECT_EQ(form->job->nodes, (std::vector<std::string>{"n1", "n2"}));  // the step's, not the job's three
  EXPECT_NE(form->reason.find("rank 1 of 2, serves an agent"), std::string::npos) << form->reason;
}

TEST(RunForm, AJobWithoutStepOrRankIsNotAStep) {
  for (const char* missing : {"SLURM_STEP_ID", "SLURM_PROCID"}) {
    Vars v = kStep;
    v.erase(missing);
    Programs p;
    auto form = decide_run_form(env(v), p.answers(), false);
    ASSERT_TRUE(form.ok()) << missing;
    EXPECT_EQ(form->kind, FormKind::kAllocation) << missing;
    EXPECT_EQ(form->job->nodes.size(), 3u) << "the job's nodes";
    EXPECT_NE(form->reason.find("not a job step"), std::string::npos);
  }
}

// CVS: a job without a step is not managed, so it is an SSH run of the cluster file
// (a CPU controller job driving the cluster's nodes). It needs no node list of the job.
TEST(RunForm, AJobWithoutAStepGivenAClusterFileRunsOverSsh) {
  for (const char* missing : {"SLURM_STEP_ID", "SLURM_PROCID"}) {
    Vars v = kStep;
    v.erase(missing);
    v.erase("SLURM_JOB_NODELIST");
    Programs p;
    auto form = decide_run_form(env(v), p.answers(), true);
    ASSERT_TRUE(form.ok()) << missing << ": " << form.error().describe();
    EXPECT_EQ(form->kind, FormKind::kPlain) << missing;
    EXPECT_FALSE(form->job) << "no agents: the cluster file's nodes over SSH";
    EXPECT_EQ(form->job_id, "42");
    EXPECT_NE(form->reason.find("inside Slurm (`scontrol version` answers) job 42 but not a job step (no "
                                "SLURM_STEP_ID), with --cluster_file: over SSH to the cluster file's nodes"),
              std::string::npos)
        << form->reason;
  }
  auto step = decide_run_form(env(kStep), Programs{}.answers(), true);
  ASSERT_TRUE(step.ok());
  EXPECT_EQ(step->kind, FormKind::kJobStep) << "a step's cluster file only lists the step's nodes";
}

TEST(RunForm, TheJobIdIsKeptInEveryFormButBareMetal) {
  Vars no_step = kStep;
  no_step.erase("SLURM_STEP_ID");
  EXPECT_EQ(decide_run_form(env(kStep), Programs{}.answers(), false)->job_id, "42");
  EXPECT_EQ(decide_run_form(env(no_step), Programs{}.answers(), false)->job_id, "42");
  EXPECT_EQ(decide_run_form(env(with(kStep, {{"CVS_SCHEDULER", "bare_metal"}})), Programs{}.answers(), true)->job_id, "");
  EXPECT_EQ(decide_run_form(env({}), Programs{}.answers(), true)->job_id, "");
}

// The job id names folders: one that could climb out of them, hide, or run on is refused.
TEST(RunForm, AJobIdThatCannotNameAFolderIsRefusedNamingTheVariable) {
  Vars no_step = kStep;
  no_step.erase("SLURM_STEP_ID");
  const std::vector<std::string> hostile = {"../../etc", "4/2", "..", ".42", "-42", "4 2", "42\n", std::string(65, '4')};
  for (const std::string& id : hostile)
    for (const Vars& v : {kStep, no_step})
      for (bool cluster_file : {false, true}) {
        auto form = decide_run_form(env(with(v, {{"SLURM_JOB_ID", id}})), Programs{}.answers(), cluster_file);
        ASSERT_FALSE(form.ok()) << id;
        EXPECT_EQ(form.error().context, "SLURM_JOB_ID") << id;
        EXPECT_NE(form.error().message.find("is not a job id: it names the run's folders"), std::string::npos)
            << form.error().message;
      }
  for (const std::string& id : std::vector<std::string>{"42", "123_4", "a.7-b", std::string(64, '4')})
    EXPECT_TRUE(decide_run_form(env(with(kStep, {{"SLURM_JOB_ID", id}})), Programs{}.answers(), false).ok()) << id;
}

TEST(RunForm, BareMetalForcedInsideAStepIsPlain) {
  Programs p;
  auto form = decide_run_form(env(with(kStep, {{"CVS_SCHEDULER", "bare_metal"}})), p.answers(), false);
  ASSERT_TRUE(form.ok());
  EXPECT_EQ(form->kind, FormKind::kPlain);
  EXPECT_FALSE(form->job);
  EXPECT_TRUE(p.asked.empty()) << "CVS_SCHEDULER overrides detection";
  EXPECT_NE(form->reason.find("CVS_SCHEDULER=bare_metal"), std::string::npos);
}

TEST(RunForm, AnUnknownSchedulerIsRefusedNamingTheVariable) {
  Programs p;
  for (const Vars& v : {with(kStep, {{"CVS_SCHEDULER", "pbs"}}), Vars{{"CVS_SCHEDULER", "Slurm"}}}) {
    auto form = decide_run_form(env(v), p.answers(), false);
    ASSERT_FALSE(form.ok());
    EXPECT_EQ(form.error().context, "CVS_SCHEDULER");
    EXPECT_NE(form.error().message.find("spur, slurm or bare_metal"), std::string::npos);
  }
}

TEST(RunForm, SpurIsDetectedBeforeSlurmAndGivesItsNodes) {
  Programs p;
  p.spur = true;
  auto form = decide_run_form(env(with(kStep, {{"SPUR_NODES", "g[07-08]"}})), p.answers(), false);
  ASSERT_TRUE(form.ok()) << form.error().describe();
  EXPECT_EQ(form->scheduler, Scheduler::kSpur);
  EXPECT_EQ(form->job->nodes, (std::vector<std::string>{"g07", "g08"}));
  EXPECT_EQ(p.asked, (std::vector<std::string>{"spur"}));
  auto forced = decide_run_form(env(with(kStep, {{"CVS_SCHEDULER", "spur"}})), Programs{}.answers(), false);
  ASSERT_FALSE(forced.ok()) << "a SPUR step has SPUR_NODES";
  EXPECT_EQ(forced.error().context, "SPUR_NODES");
}

TEST(RunForm, SlurmWhenOnlyScontrolAnswersElseBareMetal) {
  Programs slurm;
  auto form = decide_run_form(env(kStep), slurm.answers(), false);
  EXPECT_EQ(slurm.asked, (std::vector<std::string>{"spur", "scontrol"}));
  EXPECT_EQ(form->scheduler, Scheduler::kSlurm);
  Programs none;
  none.scontrol = false;
  auto bare = decide_run_form(env(kStep), none.answers(), false);
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->kind, FormKind::kPlain);
  EXPECT_NE(bare->reason.find("neither `spur version` nor `scontrol version` answers"), std::string::npos);
}

TEST(RunForm, MoreTasksThanNodesSaysHowToLaunch) {
  Programs p;
  auto form = decide_run_form(env(with(kStep, {{"SLURM_STEP_NUM_TASKS", "4"}})), p.answers(), false);
  ASSERT_FALSE(form.ok());
  EXPECT_NE(form.error().message.find("has 4 task(s) on 2 node(s); run one task per node: srun -N2 "
                                      "--ntasks-per-node=1"),
            std::string::npos)
      << form.error().message;
  auto rank = decide_run_form(env(with(kStep, {{"SLURM_PROCID", "x1"}})), p.answers(), false);
  ASSERT_FALSE(rank.ok());
  EXPECT_EQ(rank.error().context, "SLURM_PROCID");
}

// The programs run for real: the `spur` test double on PATH (tests/doubles/spur) is
// found before Slurm's scontrol; without it on PATH, SPUR is not detected.
TEST(RunForm, SpurOnPathIsAskedForReal) {
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  const std::string doubles = std::string(AORTA_SOURCE_DIR) + "/tests/doubles/spur";
  setenv("PATH", (doubles + ":" + path).c_str(), 1);
  auto with_spur = detect_scheduler(env({}), program_answers());
  setenv("PATH", path.c_str(), 1);
  ASSERT_TRUE(with_spur.ok());
  EXPECT_EQ(with_spur->first, Scheduler::kSpur);
  EXPECT_EQ(with_spur->second, "`spur version` answers");
  auto without = detect_scheduler(env({}), program_answers());
  EXPECT_NE(without->first, Scheduler::kSpur);
}

}  // namespace
}  // namespace aorta::slurm
