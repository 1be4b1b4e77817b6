// The collection's node-side commands run for real (this machine as the node, through
// LocalTransport): the copy opens what was listed or nothing (issue 42, 4), and the
// listing names only a few stale files (issue 42, 9).
#include "job/collect_node_commands.h"

#include <sys/stat.h>

#include <ctime>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "tests/fake_transport.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

namespace fs = std::filesystem;

// A checkout at <tmp>/repo with one listed file, and a private folder beside it.
class NodeCopy : public ::testing::Test {
 protected:
  NodeCopy() {
    repo_ = (dir_.path() / "repo").string();
    dir_.write("repo/out/torch_profiler/stash/id_ed25519", std::string(411, 'w'));  // the workload's own file
    dir_.write("private/id_ed25519", std::string(411, 'K'));                        // the same size: a secret
    ::chmod((dir_.path() / "private").c_str(), 0700);
  }
  // The file as the listing saw it.
  FreshFile listed(const std::string& path) {
    auto r = local_.run("localhost", trace_listing_command(repo_, "run", 0), std::chrono::seconds(30));
    EXPECT_TRUE(r.ok() && r->exit_code == 0) << (r.ok() ? r->output : r.error().message);
    std::vector<std::string> rejected;
    for (const auto& f : parse_file_listing(r.ok() ? r->output : "", rejected))
      if (f.path == path) return f;
    ADD_FAILURE() << path << " not listed";
    return {};
  }
  // The copy's exit status; its bytes in copied_, its stderr in said_.
  int copy(const FreshFile& file, Compression c = Compression::kNone) {
    const fs::path local = dir_.path() / "copy";
    auto r = local_.stream("localhost", listed_copy_command(repo_, file, c), local, std::chrono::seconds(30),
                           cluster::kNoByteLimit);
    EXPECT_TRUE(r.ok()) << r.error().message;
    std::ifstream in(local, std::ios::binary);
    copied_.assign(std::istreambuf_iterator<char>(in), {});
    said_ = r.ok() ? r->errors : "";
    return r.ok() ? r->exit_code : -1;
  }
  // `folder` of the checkout renamed away and a link to the private folder put in its place.
  void swap_for_link(const std::string& folder) {
    fs::rename(dir_.path() / "repo" / folder, dir_.path() / "repo" / (folder + ".real"));
    fs::create_directory_symlink(dir_.path() / "private", dir_.path() / "repo" / folder);
  }

  aorta::testing::TempDir dir_;
  std::string repo_;
  cluster::LocalTransport local_;
  std::string copied_, said_;
  const std::string kFile = "out/torch_profiler/stash/id_ed25519";
};

TEST_F(NodeCopy, TheListedFileIsCopiedPlainOrCompressed) {
  const FreshFile file = listed(kFile);
  EXPECT_GE(file.device, 0);
  EXPECT_GE(file.inode, 0);
  EXPECT_EQ(copy(file), 0) << said_;
  EXPECT_EQ(copied_, std::string(411, 'w'));
  EXPECT_EQ(copy(file, Compression::kGzip), 0) << said_;
  auto size = verified_size(dir_.path() / "copy", Compression::kGzip, 411);
  ASSERT_TRUE(size.ok()) << size.error().message;
  EXPECT_EQ(*size, 411u);
}

// The probe's case: a folder on the path became a link to a private folder holding a
// file of the listed size. Refused by the walk itself, with or without the identity.
TEST_F(NodeCopy, AFolderSwappedForALinkAfterTheListingIsRefused) {
  FreshFile file = listed(kFile);
  swap_for_link("out/torch_profiler/stash");
  EXPECT_EQ(copy(file), kChangedSinceListed);
  EXPECT_EQ(copied_, "");
  EXPECT_NE(said_.find(repo_ + "/out/torch_profiler/stash: "), std::string::npos) << said_;
  file.device = file.inode = -1;  // the walk alone refuses it too
  EXPECT_EQ(copy(file), kChangedSinceListed);
  EXPECT_EQ(copied_, "");
  // Any folder on the way, not only the last.
  fs::remove(dir_.path() / "repo/out/torch_profiler/stash");
  fs::rename(dir_.path() / "repo/out/torch_profiler/stash.real", dir_.path() / "repo/out/torch_profiler/stash");
  swap_for_link("out");
  EXPECT_EQ(copy(file), kChangedSinceListed);
  EXPECT_NE(said_.find(repo_ + "/out: "), std::string::npos) << said_;
}

// The file itself: a link in its place, another file of the same size, a grown file,
// a FIFO (which must not hang the copy).
TEST_F(NodeCopy, TheFileReplacedOrChangedIsRefused) {
  const FreshFile file = listed(kFile);
  const fs::path at = dir_.path() / "repo" / kFile;
  fs::rename(at, dir_.path() / "kept");
  fs::create_symlink(dir_.path() / "private/id_ed25519", at);
  EXPECT_EQ(copy(file), kChangedSinceListed);
  EXPECT_EQ(copied_, "");
  fs::remove(at);
  dir_.write("repo/" + kFile, std::string(411, 'x'));  // another inode
  EXPECT_EQ(copy(file), kChangedSinceListed);
  EXPECT_NE(said_.find("its inode is"), std::string::npos) << said_;
  fs::remove(at);
  fs::rename(dir_.path() / "kept", at);
  std::ofstream(at, std::ios::app) << "more";
  EXPECT_EQ(copy(file), kChangedSinceListed);
  EXPECT_NE(said_.find("its size is 415, the listing said 411"), std::string::npos) << said_;
  fs::remove(at);
  ASSERT_EQ(::mkfifo(at.c_str(), 0600), 0);
  EXPECT_EQ(copy(file), kChangedSinceListed);
  EXPECT_NE(said_.find("no longer a regular file"), std::string::npos) << said_;
}

// Issue 42, 9: a large tree of old files is counted, not listed: the listing stays
// small whatever the tree holds, and names only the first kStaleNamed of them.
TEST_F(NodeCopy, StaleFilesAreCountedNotListed) {
  const std::string deep = "repo/old/torch_profiler/" + std::string(200, 'd') + "/";
  const auto old = fs::file_time_type::clock::now() - std::chrono::hours(24 * 365 * 4);
  for (int i = 0; i < 300; ++i) fs::last_write_time(dir_.write(deep + std::to_string(i) + ".json", "{}"), old);
  const double floor = static_cast<double>(std::time(nullptr) - 60);
  auto r = local_.run("localhost", trace_listing_command(repo_, "run", floor), std::chrono::seconds(30));
  ASSERT_TRUE(r.ok() && r->exit_code == 0) << (r.ok() ? r->output : r.error().message);
  std::vector<std::string> rejected;
  auto files = parse_file_listing(r->output, rejected);
  size_t named = 0, counted = 0, fresh = 0;
  for (const auto& f : files) {
    if (f.type == 'C') counted += static_cast<size_t>(f.size);
    else if (f.path.starts_with("old/")) ++named;
    else if (f.path == kFile) ++fresh;
  }
  EXPECT_EQ(named, 36u);
  EXPECT_EQ(counted, 300u - 36u);
  EXPECT_EQ(fresh, 1u);
  // 36 named, each about 240 bytes: far below the 300 x 240 of the whole tree.
  EXPECT_LT(r->output.size(), 40u * 300u) << r->output.size();
}

// Issue 42, 4: a phase's log is copied where the phase ran, by the checked walk from
// the checkout: inside the container (its mount) while there is one, on the host
// (aorta_path) once it is gone; never a download by path.
TEST(LogCopy, RunsInTheContainerWhileThereIsOneElseOnTheHost) {
  for (bool container : {true, false}) {
    aorta::testing::FakeTransport fake;
    config::Variant v;
    v.aorta_path = "/scratch/alice/aorta";
    v.container_mount_path = "/workspace/aorta";
    v.container.runtime = config::RuntimeKind::kDocker;
    v.container.name = "c1";
    config::Cluster cluster;
    cluster.nodes = {{"n1", "10.0.0.1", ""}};
    RunState state;
    state.run_id = "r";
    state.launched_phases = {"benchmark"};
    state.container_started = container;
    aorta::testing::TempDir out;
    state.output_root = out.path();
    fake.on("n1", "benchmark.log", 65, "gone");
    NodeExec exec(fake, v, cluster);
    const auto notes = collect_logs(exec, state);
    const std::string root = container ? "/workspace/aorta" : "/scratch/alice/aorta";
    auto sent = fake.commands_with("n1", "benchmark.log");
    ASSERT_EQ(sent.size(), 1u);
    EXPECT_EQ(sent[0].starts_with("docker exec c1 bash -c "), container) << sent[0];
    // The walk's root, the log, and no device, inode or size to compare.
    const std::string words = " " + root + " " + root + "/.cvs-aorta/r/node_0/benchmark.log - - -";
    EXPECT_NE(sent[0].find(words), std::string::npos) << sent[0];
    EXPECT_TRUE(fake.downloads("n1").empty());
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_EQ(notes[0], "Could not collect benchmark log from n1: " + root +
                            "/.cvs-aorta/r/node_0/benchmark.log on n1 was not copied: it is gone, not a regular file, "
                            "or a folder on its path is a link (gone)");
  }
}

}  // namespace
}  // namespace aorta::job
