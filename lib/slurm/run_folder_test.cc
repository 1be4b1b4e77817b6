#include "slurm/run_folder.h"

#include <algorithm>
#include <mutex>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include "tests/temp_dir.h"

namespace aorta::slurm {
namespace {

namespace fs = std::filesystem;

TEST(RunFolder, TheJobIdNamesItAndALaterRunInTheJobGetsASuffix) {
  testing::TempDir tmp;
  const fs::path out = tmp.path() / "results";  // made when missing, as every output folder
  EXPECT_EQ(claim_job_run_folder("4217", {out}).value(), "4217");
  EXPECT_EQ(claim_job_run_folder("4217", {out}).value(), "4217-2");
  EXPECT_EQ(claim_job_run_folder("4217", {out}).value(), "4217-3");
  EXPECT_EQ(claim_job_run_folder("4218", {out}).value(), "4218");
  for (const char* name : {"4217", "4217-2", "4217-3", "4218"}) EXPECT_TRUE(fs::is_directory(out / name)) << name;
}

// The workspace's cvs_runs and the output_dir both take the name: one that either
// already has is passed over, and the other keeps no empty folder of it.
TEST(RunFolder, ANameTakenInAnyParentIsPassedOver) {
  testing::TempDir tmp;
  const fs::path out = tmp.path() / "out", runs = tmp.path() / "ws" / "cvs_runs";
  fs::create_directories(runs / "77");
  EXPECT_EQ(claim_job_run_folder("77", {out, runs}).value(), "77-2");
  EXPECT_FALSE(fs::exists(out / "77")) << "made for a name not taken";
  EXPECT_TRUE(fs::is_directory(out / "77-2"));
  EXPECT_TRUE(fs::is_directory(runs / "77-2"));
}

// Review of issue 43: the output_dir may be the workspace's cvs_runs itself (the same
// folder given twice, by another spelling too): it is claimed once, not refused 1000 times.
TEST(RunFolder, OneFolderGivenTwiceIsClaimedOnce) {
  testing::TempDir tmp;
  const fs::path runs = tmp.path() / "ws" / "cvs_runs";
  EXPECT_EQ(claim_job_run_folder("91", {runs, tmp.path() / "ws" / "." / "cvs_runs"}).value(), "91");
  EXPECT_EQ(claim_job_run_folder("91", {runs, runs}).value(), "91-2");
  EXPECT_TRUE(fs::is_directory(runs / "91"));
}

// Runs started at once in one job (threads here: mkdir is as atomic between
// processes) each get a folder of their own.
TEST(RunFolder, RunsAtOnceInOneJobNeverShareAFolder) {
  testing::TempDir tmp;
  constexpr int kRuns = 12;
  std::mutex lock;
  std::vector<std::string> names;
  std::vector<std::thread> runs;
  for (int i = 0; i < kRuns; ++i)
    runs.emplace_back([&] {
      auto name = claim_job_run_folder("9", {tmp.path() / "a", tmp.path() / "b"});
      std::lock_guard<std::mutex> hold(lock);
      names.push_back(name ? *name : name.error().describe());
    });
  for (auto& t : runs) t.join();
  std::set<std::string> expected = {"9"};
  for (int i = 2; i <= kRuns; ++i) expected.insert("9-" + std::to_string(i));
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()), expected);
}

TEST(RunFolder, ANameThatWouldLeaveItsFolderIsRefused) {
  testing::TempDir tmp;
  const fs::path out = tmp.path() / "deep" / "out";
  for (const char* id : {"../x", "..", ".", "", "a/b"}) {
    auto name = claim_job_run_folder(id, {out});
    ASSERT_FALSE(name.ok()) << id;
    EXPECT_EQ(name.error().context, "SLURM_JOB_ID");
  }
  EXPECT_FALSE(fs::exists(tmp.path() / "deep" / "x"));
  EXPECT_FALSE(fs::exists(tmp.path() / "x"));
}

TEST(RunFolder, AnOutputDirThatIsAFileIsNamed) {
  testing::TempDir tmp;
  const fs::path file = tmp.write("taken", "a file");
  auto name = claim_job_run_folder("5", {file});
  ASSERT_FALSE(name.ok());
  EXPECT_NE(name.error().describe().find(file.string()), std::string::npos) << name.error().describe();
}

}  // namespace
}  // namespace aorta::slurm
