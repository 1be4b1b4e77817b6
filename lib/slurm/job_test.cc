#include "slurm/job.h"

#include <map>

#include <gtest/gtest.h>

namespace aorta::slurm {
namespace {

Getenv env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(SlurmJob, OutsideAJobThereIsNone) {
  auto job = job_from_environment(env({}));
  ASSERT_TRUE(job.ok());
  EXPECT_FALSE(job->has_value());
}

TEST(SlurmJob, NodesInOrderHostnamesAsFabricAddresses) {
  auto job = job_from_environment(env({{"SLURM_JOB_ID", "42"}, {"SLURM_JOB_NODELIST", "gpu[07-08],gpu10"},
                                       {"SLURM_GPUS_ON_NODE", "8"}}));
  ASSERT_TRUE(job.ok() && job->has_value());
  const SlurmJob& j = **job;
  EXPECT_EQ(j.nodes, (std::vector<std::string>{"gpu07", "gpu08", "gpu10"}));
  EXPECT_EQ(j.gpus_per_node, 8);
  auto cluster = cluster_from_job(j, "alice", nullptr);
  ASSERT_TRUE(cluster.ok());
  EXPECT_EQ(cluster->head().name, "gpu07");
  EXPECT_EQ(cluster->head().vpc_ip, "gpu07");  // rendezvous on the first node's hostname
  EXPECT_EQ(cluster->nodes.size(), 3u);
  EXPECT_EQ(cluster->username, "alice");
}

TEST(SlurmJob, GpusFromJobGpusOrUnknown) {
  auto listed = job_from_environment(env({{"SLURM_JOB_ID", "1"}, {"SLURM_NODELIST", "n1"}, {"SLURM_JOB_GPUS", "0,1,2,3"}}));
  EXPECT_EQ((*listed)->gpus_per_node, 4);
  auto unknown = job_from_environment(env({{"SLURM_JOB_ID", "1"}, {"SLURM_JOB_NODELIST", "n1"}}));
  EXPECT_FALSE((*unknown)->gpus_per_node.has_value());
}

TEST(SlurmJob, ClusterFileNodesMustBelongToTheJob) {
  SlurmJob job{.id = "7", .nodes = {"n1", "n2"}};
  config::Cluster file;
  file.file = "/c.json";
  file.nodes = {{"n1", "10.0.0.1", ""}, {"n3", "10.0.0.3", ""}};
  auto rejected = cluster_from_job(job, "u", &file);
  ASSERT_FALSE(rejected.ok());
  EXPECT_NE(rejected.error().message.find("node(s) n3 are not in Slurm job 7"), std::string::npos);
  EXPECT_EQ(rejected.error().context, "/c.json");
  file.nodes = {{"n2", "10.0.0.2", ""}};
  auto kept = cluster_from_job(job, "u", &file);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->head().vpc_ip, "10.0.0.2");  // the file's fabric address wins
}

TEST(SlurmJob, BadNodeListIsNamed) {
  auto job = job_from_environment(env({{"SLURM_JOB_ID", "9"}, {"SLURM_JOB_NODELIST", "n[1-"}}));
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.error().context, "SLURM_JOB_NODELIST");
  auto none = job_from_environment(env({{"SLURM_JOB_ID", "9"}}));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find("has no SLURM_JOB_NODELIST"), std::string::npos);
}

TEST(SlurmJob, TimeLeftInSqueueFormats) {
  EXPECT_EQ(parse_time_left("1-02:03:04\n"), 86400 + 2 * 3600 + 3 * 60 + 4);
  EXPECT_EQ(parse_time_left("02:03:04"), 2 * 3600 + 3 * 60 + 4);
  EXPECT_EQ(parse_time_left("59:58"), 59 * 60 + 58);
  EXPECT_FALSE(parse_time_left("UNLIMITED"));
  EXPECT_FALSE(parse_time_left("NOT_SET"));
  EXPECT_FALSE(parse_time_left("12"));
  EXPECT_FALSE(parse_time_left(""));
}

}  // namespace
}  // namespace aorta::slurm
