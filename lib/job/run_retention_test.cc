// Retention of the per-run folders on the nodes, with real bash, mv and rm on this
// machine (the local transport runs every node's command here; two nodes of one
// checkout are nodes on shared storage).
#include "job/run_retention.h"

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "tests/local_nodes.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

namespace fs = std::filesystem;

std::string id(char digit) { return std::string(32, digit); }

config::Cluster nodes(const std::vector<std::string>& names) { return aorta::testing::local_nodes(names); }

class RunRetention : public ::testing::Test {
 protected:
  RunRetention() {
    fs::create_directories(suite);
    v.aorta_path = repo.string();
    v.container.runtime = config::RuntimeKind::kNone;
    v.timeout_seconds = 60;
    state.run_id = id('c');
  }
  // A run folder with a file in it, last written `age` hours ago.
  void run_folder(const std::string& name, int age) {
    fs::create_directories(suite / name / "node_0");
    dir_.write("repo/.cvs-aorta/" + name + "/node_0/benchmark.log", "log");
    fs::last_write_time(suite / name, fs::file_time_type::clock::now() - std::chrono::hours(age));
  }
  std::vector<std::string> left() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(suite)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  aorta::testing::TempDir dir_;
  fs::path repo = dir_.path() / "repo", suite = repo / ".cvs-aorta";
  cluster::LocalTransport local;
  config::Variant v;
  RunState state;
};

TEST_F(RunRetention, KeepsThisRunAndTheNewestOthersAndNothingButRunFoldersIsTouched) {
  // This run's folder is the oldest by time and still kept; of the others the newest is.
  run_folder(id('c'), 9);
  for (char d : {'1', '2', '3', '4'}) run_folder(id(d), d - '0');
  fs::create_directories(suite / "lock");
  dir_.write("repo/.cvs-aorta/will." + id('c') + ".node1", "kill");
  fs::create_directories(suite / "not-a-run");
  fs::create_directories(dir_.path() / "elsewhere");
  fs::create_directory_symlink(dir_.path() / "elsewhere", suite / id('e'));
  fs::create_directories(suite / (".removing." + id('9') + ".123"));  // a removal cut short
  fs::last_write_time(suite / (".removing." + id('9') + ".123"), fs::file_time_type::clock::now() - std::chrono::hours(1));
  fs::create_directories(suite / (".removing." + id('8') + ".456"));  // another node's, under way: left alone
  v.keep_node_runs = 2;
  const config::Cluster one = nodes({"node1"});
  NodeExec exec{local, v, one};
  state.workdir_locks["node1"] = 1;
  auto out = apply_retention(exec, state);
  EXPECT_TRUE(out.errors.empty()) << out.errors.front();
  const std::vector<std::string> expected{".removing." + id('8') + ".456", id('1'), id('c'), id('e'), "lock",
                                          "not-a-run", "will." + id('c') + ".node1"};
  EXPECT_EQ(left(), expected);
  EXPECT_TRUE(fs::exists(dir_.path() / "elsewhere")) << "a link's target is never touched";
  ASSERT_EQ(out.notes.size(), 1u);
  EXPECT_EQ(out.notes[0],
            "node1: removed 3 run folder(s) (22222222, 33333333, 44444444), kept 2 (this run's, 11111111) "
            "(keep_node_runs 2)")
      << "the newest removed first in the list, as the nodes sort them";
}

TEST_F(RunRetention, ZeroRemovesThisRunsFolderOnlyOnceItsTracesAreHome) {
  run_folder(id('c'), 0);
  run_folder(id('1'), 1);
  v.keep_node_runs = 0;
  const config::Cluster one = nodes({"node1"});
  NodeExec exec{local, v, one};
  state.workdir_locks["node1"] = 1;
  state.collection_errors.push_back({.host = "node1", .message = "copy failed"});
  state.trace_trees["node1"] = {"output"};
  auto kept = apply_retention(exec, state);
  EXPECT_EQ(left(), std::vector<std::string>{id('c')});
  EXPECT_EQ(kept.notes.at(0),
            "node1: removed 1 run folder(s) (11111111), kept 1 (this run's); this run's folder is kept: its traces "
            "did not all come home (keep_node_runs 0)");
  state.collection_errors.clear();
  auto removed = apply_retention(exec, state);
  EXPECT_TRUE(left().empty());
  EXPECT_EQ(removed.notes.at(0), "node1: removed 1 run folder(s) (this run's), kept 0 (keep_node_runs 0)");
}

TEST_F(RunRetention, NodesSharingStorageRemoveEachFolderOnceWithoutErrors) {
  for (char d : {'c', '1', '2', '3', '4', '5', '6'}) run_folder(id(d), d == 'c' ? 0 : d - '0');
  v.keep_node_runs = 1;
  const config::Cluster two = nodes({"node1", "node2"});
  NodeExec exec{local, v, two};
  state.workdir_locks = {{"node1", 1}, {"node2", 2}};
  auto out = apply_retention(exec, state);
  EXPECT_TRUE(out.errors.empty()) << out.errors.front();
  EXPECT_EQ(left(), std::vector<std::string>{id('c')});
  ASSERT_EQ(out.notes.size(), 2u);
  // The two nodes ran at once: between them, each of the six folders was removed once.
  auto removed = [](const std::string& note) { return std::stoi(note.substr(note.find("removed ") + 8)); };
  EXPECT_EQ(removed(out.notes[0]) + removed(out.notes[1]), 6) << out.notes[0] << "\n" << out.notes[1];
}

// Shared storage: the run's folder holds both nodes' work; one node's traces did not
// come home, so neither node removes it (the other's traces are in it).
TEST_F(RunRetention, ZeroKeepsThisRunsFolderOnSharedStorageWhileAnyNodesTracesAreNotHome) {
  run_folder(id('c'), 0);
  v.keep_node_runs = 0;
  const config::Cluster two = nodes({"node1", "node2"});
  NodeExec exec{local, v, two};
  state.workdir_locks = {{"node1", 1}, {"node2", 2}};
  state.trace_trees["node1"] = {"output"};
  state.trace_trees["node2"] = {"output"};
  state.collection_errors.push_back({.host = "node2", .message = "copy failed"});
  auto out = apply_retention(exec, state);
  EXPECT_TRUE(out.errors.empty());
  EXPECT_EQ(left(), std::vector<std::string>{id('c')});
}

TEST_F(RunRetention, OnlyNodesThisRunHoldsTheLockOfAndAMissingFolderIsNothingToDo) {
  run_folder(id('1'), 1);
  v.keep_node_runs = 0;
  const config::Cluster one = nodes({"node1"});
  NodeExec exec{local, v, one};
  EXPECT_TRUE(apply_retention(exec, state).notes.empty()) << "no lock held: another run may use the folders";
  EXPECT_EQ(left(), std::vector<std::string>{id('1')});
  v.aorta_path = (dir_.path() / "absent").string();
  state.workdir_locks["node1"] = 1;
  auto out = apply_retention(exec, state);
  EXPECT_TRUE(out.errors.empty());
  EXPECT_EQ(out.notes.at(0), "node1: removed 0 run folder(s), kept 0 (keep_node_runs 0)");
}

TEST(RetentionCommand, ArgumentsAreQuotedNeverPastedIntoTheScript) {
  const std::string cmd = retention_command("/x/$(touch y)/.cvs-aorta", id('c'), 2, true);
  EXPECT_NE(cmd.find("'/x/$(touch y)/.cvs-aorta'"), std::string::npos) << cmd;
}

}  // namespace
}  // namespace aorta::job
