// The suite's package placed on nodes over a real sshd on loopback: 127.0.0.1 and
// 127.0.0.2 are two nodes that share storage (this machine's), so the first is placed
// alone and the second finds the package there.
#include "job/node_package.h"

#include <sys/resource.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <memory>

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "common/shell_quote.h"
#include "tests/ssh_transport_fixture.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

namespace fs = std::filesystem;
using aorta::testing::TempDir;

// A package as the TGZ installs one: the binary, a library by its soname link, and one
// with no link.
fs::path fake_package(const TempDir& dir, const std::string& binary_text) {
  const fs::path root = dir.path() / "pkg";
  fs::create_directories(root / "bin");
  fs::create_directories(root / "lib" / "aorta_suite");
  std::ofstream(root / "bin" / "aorta_suite") << binary_text;
  std::ofstream(root / "lib" / "aorta_suite" / "libfmt.so.9.1.0") << "fmt bytes";
  fs::create_symlink("libfmt.so.9.1.0", root / "lib" / "aorta_suite" / "libfmt.so.9");
  std::ofstream(root / "lib" / "aorta_suite" / "libcrypto.so.3") << "crypto bytes";
  return root / "bin" / "aorta_suite";
}

// What a command prints on this machine.
std::string output_of(const std::string& command) {
  cluster::LocalTransport local;
  auto r = local.run("localhost", command, std::chrono::seconds(30));
  return r.ok() ? r->output : "(did not run: " + r.error().message + ")";
}

std::string sha256sum_of(const std::string& text) {
  TempDir dir;
  return output_of("sha256sum < " + shell_quote(dir.write("x", text).string())).substr(0, 64);
}

// Each library by the name the binary loads it by, hashed as sha256sum hashes it; the
// package's id is the manifest's hash. A build tree's binary is no package.
TEST(NodePackage, TheBinaryAndEachLibraryByTheNameItIsLoadedBy) {
  TempDir dir;
  auto package = package_of(fake_package(dir, "binary bytes"));
  ASSERT_TRUE(package.ok()) << package.error().message;
  std::vector<std::string> names;
  for (const auto& f : package->files) names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"bin/aorta_suite", "lib/aorta_suite/libcrypto.so.3",
                                             "lib/aorta_suite/libfmt.so.9"}));
  EXPECT_EQ(package->files[0].sha256, sha256sum_of("binary bytes"));
  EXPECT_EQ(package->files[2].sha256, sha256sum_of("fmt bytes"));
  EXPECT_EQ(package->bytes(), std::string("binary bytes").size() + 12 + 9);
  EXPECT_EQ(manifest(*package), sha256sum_of("binary bytes") + "  bin/aorta_suite\n" + sha256sum_of("crypto bytes") +
                                    "  lib/aorta_suite/libcrypto.so.3\n" + sha256sum_of("fmt bytes") +
                                    "  lib/aorta_suite/libfmt.so.9\n");
  EXPECT_EQ(package->id, sha256sum_of(manifest(*package)));
  std::ofstream(dir.path() / "aorta_suite") << "a build tree's";
  auto tree = package_of(dir.path() / "aorta_suite");
  ASSERT_FALSE(tree.ok());
  EXPECT_NE(tree.error().message.find("not in the package layout"), std::string::npos) << tree.error().message;
}

class NodePackagePlacement : public aorta::cluster::SshTransportTest {
 protected:
  NodePackagePlacement() {
    v.aorta_path = (repo.path() / "repo").string();
    v.container.runtime = config::RuntimeKind::kNone;
    fs::create_directories(fs::path(v.aorta_path) / ".cvs-aorta");
    c.nodes = {{"127.0.0.1", "", ""}, {"127.0.0.2", "", ""}};
  }
  TempDir repo;
  config::Variant v;
  config::Cluster c;
};

// First run: placed on the first node; the second shares its storage and holds it on the
// second look. The placed binary runs, and its files are private. Then a run of the same
// build places nothing; a damaged library is found by its hash and the copy replaced; a
// new build's package replaces the old one's folder.
TEST_F(NodePackagePlacement, PlacedOnceCheckedByHashRepairedAndTheOldBuildRemoved) {
  TempDir dir;
  auto t = transport(options());
  ASSERT_TRUE(t);
  NodeExec exec(*t, v, c);
  const fs::path binary = fake_package(dir, "#!/bin/sh\necho placed binary ran\n");
  auto package = package_of(binary);
  ASSERT_TRUE(package.ok());
  const std::vector<std::string> hosts{"127.0.0.1", "127.0.0.2"};
  auto first = place_package(exec, hosts, *package, "run1");
  const std::string placed = v.aorta_path + "/.cvs-aorta/package/" + package->id + "/bin/aorta_suite";
  for (const auto& b : first.binaries) {
    ASSERT_TRUE(b.ok()) << b.error().describe();
    EXPECT_EQ(*b, placed);
  }
  EXPECT_NE(first.summary.find("already on 0 of 2 node(s), placed on 1"), std::string::npos) << first.summary;
  EXPECT_NE(first.summary.find("bin/aorta_suite and 2 libraries"), std::string::npos) << first.summary;
  EXPECT_EQ(output_of(shell_quote(placed)), "placed binary ran\n");
  EXPECT_EQ(fs::status(fs::path(placed).parent_path().parent_path()).permissions() & fs::perms::all,
            fs::perms::owner_all);
  const auto root = fs::path(v.aorta_path) / ".cvs-aorta" / "package";
  auto entries = [&] {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(root)) names.push_back(e.path().filename().string());
    return names;
  };
  EXPECT_EQ(entries(), std::vector<std::string>{package->id});  // no part folder left

  auto again = place_package(exec, hosts, *package, "run2");
  EXPECT_NE(again.summary.find("already on 2 of 2 node(s), placed on 0"), std::string::npos) << again.summary;

  std::ofstream(root / package->id / "lib" / "aorta_suite" / "libfmt.so.9") << "tampered";
  auto repaired = place_package(exec, hosts, *package, "run3");
  EXPECT_NE(repaired.summary.find("already on 0 of 2 node(s), placed on 1"), std::string::npos) << repaired.summary;
  EXPECT_EQ(aorta::testing::slurp(root / package->id / "lib" / "aorta_suite" / "libfmt.so.9"), "fmt bytes");

  TempDir other;
  auto next = package_of(fake_package(other, "#!/bin/sh\necho next build\n"));
  ASSERT_TRUE(next.ok());
  auto replaced = place_package(exec, hosts, *next, "run4");
  ASSERT_TRUE(replaced.binaries[1].ok()) << replaced.binaries[1].error().describe();
  EXPECT_EQ(entries(), std::vector<std::string>{next->id});
}

// A node whose package folder cannot be made (a file stands there) is named, with what to do.
TEST_F(NodePackagePlacement, ANodeThatCannotTakeItIsNamedWithWhatToDo) {
  TempDir dir;
  auto t = transport(options());
  ASSERT_TRUE(t);
  NodeExec exec(*t, v, c);
  auto package = package_of(fake_package(dir, "#!/bin/sh\n"));
  ASSERT_TRUE(package.ok());
  std::ofstream(fs::path(v.aorta_path) / ".cvs-aorta" / "package") << "a file, not a folder";
  auto placed = place_package(exec, {"127.0.0.1"}, *package, "run1");
  ASSERT_FALSE(placed.binaries[0].ok());
  const auto& e = placed.binaries[0].error();
  EXPECT_EQ(e.context, "127.0.0.1");
  EXPECT_NE(e.message.find("could not be placed in " + v.aorta_path + "/.cvs-aorta/package/" + package->id),
            std::string::npos) << e.message;
  EXPECT_NE(e.message.find("name it in analysis.node_binary"), std::string::npos) << e.message;
  EXPECT_NE(placed.summary.find("not on 1"), std::string::npos) << placed.summary;
}

// An aorta_path with spaces, both quotes, $(...), a leading dash and glob characters stays
// data in every command: the package is placed, runs, and is found held the next time.
TEST_F(NodePackagePlacement, AHostileAortaPathStaysData) {
  TempDir dir;
  v.aorta_path = (repo.path() / "-x a'b \"c $(touch PWNED) [*]").string();
  fs::create_directories(fs::path(v.aorta_path) / ".cvs-aorta");
  auto t = transport(options());
  ASSERT_TRUE(t);
  NodeExec exec(*t, v, c);
  auto package = package_of(fake_package(dir, "#!/bin/sh\necho ran\n"));
  ASSERT_TRUE(package.ok());
  auto placed = place_package(exec, {"127.0.0.1", "127.0.0.2"}, *package, "run1");
  for (const auto& b : placed.binaries) ASSERT_TRUE(b.ok()) << b.error().describe();
  EXPECT_EQ(output_of(shell_quote(*placed.binaries[0])), "ran\n");
  auto again = place_package(exec, {"127.0.0.1", "127.0.0.2"}, *package, "run2");
  EXPECT_NE(again.summary.find("already on 2 of 2"), std::string::npos) << again.summary;
  EXPECT_FALSE(fs::exists(repo.path() / "PWNED"));
  EXPECT_FALSE(fs::exists("PWNED"));
}

// The prune takes only the names placement makes, never a link, and never what else a
// linked root's target holds (an operator who put the packages on a bigger disk): there a
// stale copy of a cancelled run and an older build go, and nothing else does.
TEST_F(NodePackagePlacement, ThePruneTakesOnlyItsOwnNamesThroughALinkedRoot) {
  TempDir dir, scratch;
  auto t = transport(options());
  ASSERT_TRUE(t);
  NodeExec exec(*t, v, c);
  const std::string older(64, 'a'), linked(64, 'b');
  fs::create_directories(scratch.path() / "alice-datasets");
  std::ofstream(scratch.path() / "alice-datasets" / "train.bin") << "precious";
  fs::create_directories(scratch.path() / older);
  fs::create_directories(scratch.path() / (older + ".part-0123abcd-0"));
  fs::create_directory_symlink(scratch.path() / "alice-datasets", scratch.path() / linked);
  fs::create_directory_symlink(scratch.path(), fs::path(v.aorta_path) / ".cvs-aorta" / "package");
  auto package = package_of(fake_package(dir, "#!/bin/sh\n"));
  ASSERT_TRUE(package.ok());
  auto placed = place_package(exec, {"127.0.0.1"}, *package, "run1");
  ASSERT_TRUE(placed.binaries[0].ok()) << placed.binaries[0].error().describe();
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(scratch.path())) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{package->id, "alice-datasets", linked})) << ::testing::PrintToString(left);
  EXPECT_EQ(aorta::testing::slurp(scratch.path() / "alice-datasets" / "train.bin"), "precious");
}

// A node that does not answer is named as such (not "free space there") and is not
// counted as holding the package; the other is placed.
TEST_F(NodePackagePlacement, ASilentNodeIsNamedAndNotCountedAsHoldingIt) {
  TempDir dir;
  c.nodes = {{"127.0.0.1", "", ""}, {"127.0.0.3", "", ""}};  // nothing listens on .3
  auto o = options();
  o.connect_timeout = std::chrono::seconds(3);
  auto t = transport(o);
  ASSERT_TRUE(t);
  NodeExec exec(*t, v, c);
  auto package = package_of(fake_package(dir, "#!/bin/sh\n"));
  ASSERT_TRUE(package.ok());
  auto placed = place_package(exec, {"127.0.0.1", "127.0.0.3"}, *package, "run1");
  EXPECT_NE(placed.summary.find("already on 0 of 2 node(s), placed on 1, not on 1"), std::string::npos)
      << placed.summary;
  ASSERT_TRUE(placed.binaries[0].ok());
  ASSERT_FALSE(placed.binaries[1].ok());
  const auto& e = placed.binaries[1].error();
  EXPECT_EQ(e.context, "127.0.0.3");
  EXPECT_NE(e.message.find("could not be checked"), std::string::npos) << e.message;
  EXPECT_EQ(e.message.find("free space"), std::string::npos) << e.message;
}

// A node without sha256sum is told so before anything is sent to it.
TEST_F(NodePackagePlacement, ANodeWithoutSha256sumIsToldSoBeforeAnyCopy) {
  TempDir dir, bin;
  for (const char* tool : {"bash", "sh", "rm", "mkdir", "mv", "chmod", "cat", "env", "timeout", "setsid", "grep"})
    fs::create_symlink(fs::path("/usr/bin") / tool, bin.path() / tool);
  aorta::testing::SshdSetup setup;
  setup.extra_config = "SetEnv PATH=" + bin.path().string();
  aorta::testing::SshdServer server(setup);
  auto t = transport(aorta::cluster::root_options(server));
  ASSERT_TRUE(t);
  NodeExec exec(*t, v, c);
  auto package = package_of(fake_package(dir, "#!/bin/sh\n"));
  ASSERT_TRUE(package.ok());
  auto placed = place_package(exec, {"127.0.0.1"}, *package, "run1");
  ASSERT_FALSE(placed.binaries[0].ok());
  EXPECT_NE(placed.binaries[0].error().message.find("sha256sum (coreutils) is missing on the node"), std::string::npos)
      << placed.binaries[0].error().message;
  EXPECT_FALSE(fs::exists(fs::path(v.aorta_path) / ".cvs-aorta" / "package")) << "something was sent";
}

// A copy that fails part way (the node's file size limit, as a full disk) is removed: a
// node that fails every night must not gain a partial copy each run.
TEST_F(NodePackagePlacement, AFailedCopyLeavesNothingBehind) {
  TempDir dir;
  const fs::path binary = fake_package(dir, "#!/bin/sh\n" + std::string(40000, '#') + "\n");
  std::ofstream(dir.path() / "pkg" / "lib" / "aorta_suite" / "libbig.so.1") << std::string(400000, 'x');
  auto package = package_of(binary);
  ASSERT_TRUE(package.ok());
  // The node's sshd (and its SFTP server) inherit a 100 kB file size limit.
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit old{};
  getrlimit(RLIMIT_FSIZE, &old);
  rlimit small = old;
  small.rlim_cur = 100000;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  auto full_node = std::make_unique<aorta::testing::SshdServer>();
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  auto t = transport(aorta::cluster::root_options(*full_node));
  ASSERT_TRUE(t);
  NodeExec exec(*t, v, c);
  for (const char* run : {"run1", "run2"}) {
    auto placed = place_package(exec, {"127.0.0.1"}, *package, run);
    ASSERT_FALSE(placed.binaries[0].ok());
    EXPECT_NE(placed.binaries[0].error().message.find("free space there"), std::string::npos)
        << placed.binaries[0].error().message;
  }
  const auto root = fs::path(v.aorta_path) / ".cvs-aorta" / "package";
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(root)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{}) << ::testing::PrintToString(left);
}

}  // namespace
}  // namespace aorta::job
