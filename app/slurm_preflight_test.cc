// Audit G7: inside a Slurm job, a run whose GRES gives fewer GPUs per node than the
// config's gpus_per_node is refused before anything runs, naming both numbers.
#include "app/slurm_preflight.h"

#include <map>

#include <gtest/gtest.h>

#include "tests/fake_transport.h"

namespace aorta::app {
namespace {

// The job as this process would read it from a Slurm step's environment.
slurm::SlurmJob job_with(const std::map<std::string, std::string>& gres) {
  std::map<std::string, std::string> vars = {{"SLURM_JOB_ID", "42"}, {"SLURM_JOB_NODELIST", "gpu[01-02]"}};
  vars.insert(gres.begin(), gres.end());
  auto job = slurm::job_from_environment([&](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
  EXPECT_TRUE(job.ok() && job->has_value());
  return **job;
}

TEST(SlurmPreflight, FewerGresGpusPerNodeThanTheConfigNeedsIsRefused) {
  config::Variant v;
  v.gpus_per_node = 2;
  v.timeout_seconds = 60;
  v.threshold_file = "/shared/thresholds.json";
  auto cluster = slurm::cluster_from_job(job_with({}), "alice", nullptr);
  ASSERT_TRUE(cluster.ok());
  aorta::testing::FakeTransport agents;  // every node sees every file
  std::string said;  // what the check printed
  auto problem = [&](const std::map<std::string, std::string>& gres) {
    ::testing::internal::CaptureStdout();
    auto found = slurm_job_problem(job_with(gres), *cluster, v, "/shared/config.json", agents);
    said = ::testing::internal::GetCapturedStdout();
    return found;
  };
  const std::optional<std::string> refused = "Slurm job 42 has 1 GPU(s) per node, the config needs gpus_per_node 2";
  EXPECT_EQ(problem({{"SLURM_GPUS_ON_NODE", "1"}}), refused);
  EXPECT_EQ(problem({{"SLURM_JOB_GPUS", "0"}}), refused);
  EXPECT_EQ(problem({{"SLURM_GPUS_ON_NODE", "2"}}), std::nullopt);  // as many as needed
  EXPECT_EQ(problem({{"SLURM_JOB_GPUS", "0,1,2"}}), std::nullopt);
  EXPECT_EQ(problem({}), std::nullopt);  // no GRES: the config's number is used, saying so
  EXPECT_NE(said.find("requested no GPUs through GRES"), std::string::npos) << said;
}

}  // namespace
}  // namespace aorta::app
