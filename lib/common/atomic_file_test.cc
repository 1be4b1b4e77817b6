#include "common/atomic_file.h"

#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/temp_dir.h"

namespace aorta {
namespace {

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

size_t entries(const std::filesystem::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(AtomicFile, ReplacesTheTargetAndLeavesNoTemporaryFile) {
  aorta::testing::TempDir dir;
  auto target = dir.write("report.json", "old\n");
  ASSERT_TRUE(write_file_atomically(target, "new\n"));
  EXPECT_EQ(read_all(target), "new\n");
  EXPECT_EQ(entries(dir.path()), 1u);
}

// Content made piece by piece (a log redacted as it is read): the pieces in order; a
// piece that cannot be made leaves the old file and no temporary one, with its error.
TEST(AtomicFile, PiecesAreWrittenInOrderAndAFailedPieceChangesNothing) {
  aorta::testing::TempDir dir;
  auto target = dir.write("node.log", "old\n");
  std::vector<std::string> pieces = {"one ", "two\n", ""};
  size_t next = 0;
  ASSERT_TRUE(write_file_atomically(target, [&]() -> Result<std::string> { return pieces.at(next++); }));
  EXPECT_EQ(read_all(target), "one two\n");
  next = 0;
  auto failed = write_file_atomically(target, [&]() -> Result<std::string> {
    if (next++ == 0) return std::string("partial");
    return Error{ErrorCode::kIo, "could not read: Input/output error", "node.log"};
  });
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().describe(), "node.log: could not read: Input/output error");
  EXPECT_EQ(read_all(target), "one two\n");
  EXPECT_EQ(entries(dir.path()), 1u);
}

// A full disk, for real: a 64 KiB tmpfs (root only, as CI runs). The failed write
// must name the file and the reason and leave the earlier result as it was.
TEST(AtomicFile, AFullDiskKeepsTheEarlierFileAndSaysNoSpaceLeft) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  aorta::testing::TempDir dir;
  auto mnt = dir.path() / "small";
  std::filesystem::create_directories(mnt);
  ASSERT_EQ(::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=64k"), 0) << std::strerror(errno);
  struct Unmount {
    std::filesystem::path p;
    ~Unmount() { ::umount2(p.c_str(), MNT_DETACH); }
  } unmount{mnt};
  auto target = mnt / "report.json";
  std::ofstream(target) << "earlier result\n";
  Status s = write_file_atomically(target, std::string(1 << 20, 'x'));
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().describe().find(target.string()), std::string::npos) << s.error().describe();
  EXPECT_NE(s.error().describe().find("No space left on device"), std::string::npos) << s.error().describe();
  EXPECT_EQ(read_all(target), "earlier result\n");
  EXPECT_EQ(entries(mnt), 1u) << "the temporary file was not removed";
}

}  // namespace
}  // namespace aorta
