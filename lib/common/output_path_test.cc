#include "common/output_path.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "common/atomic_file.h"
#include "tests/temp_dir.h"

namespace aorta {
namespace {
namespace fs = std::filesystem;

constexpr uid_t kOtherUser = 4242;  // no such user here: "another user" for the tests

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Issue 29, 1: a report folder that another user replaced by a link to elsewhere
// (root's .ssh, say) is refused at the moment of writing; nothing lands there.
TEST(OutputPath, AnotherUsersLinkOnTheWayIsRefused) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a link to another user";
  testing::TempDir dir;
  fs::create_directories(dir.path() / "elsewhere");
  fs::create_symlink(dir.path() / "elsewhere", dir.path() / "aorta_single_html");
  ASSERT_EQ(::lchown((dir.path() / "aorta_single_html").c_str(), kOtherUser, kOtherUser), 0);
  Status s = write_file_atomically(dir.path() / "aorta_single_html" / "stage.html", "report");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().describe().find("aorta_single_html: refused to write there: it is a symbolic link owned by uid "
                                      "4242, neither root nor you"),
            std::string::npos)
      << s.error().describe();
  EXPECT_TRUE(fs::is_empty(dir.path() / "elsewhere"));
  // Nor is a folder made through it.
  EXPECT_FALSE(open_output_folder(dir.path() / "aorta_single_html" / "node_logs", true));
  EXPECT_TRUE(fs::is_empty(dir.path() / "elsewhere"));
}

// A link of one's own (or root's) leads on: /var/run -> /run, a home on another disk.
TEST(OutputPath, OwnLinkIsFollowed) {
  testing::TempDir dir;
  fs::create_directories(dir.path() / "real");
  fs::create_symlink("real", dir.path() / "mine");
  ASSERT_TRUE(write_file_atomically(dir.path() / "mine" / "r.json", "{}"));
  EXPECT_EQ(read(dir.path() / "real" / "r.json"), "{}");
  ASSERT_TRUE(open_output_folder(dir.path() / "mine" / "a" / "b", true));
  EXPECT_TRUE(fs::is_directory(dir.path() / "real" / "a" / "b"));
}

TEST(OutputPath, FolderOfAnotherUserOrOpenToAllIsRefused) {
  testing::TempDir dir;
  fs::create_directories(dir.path() / "open");
  fs::permissions(dir.path() / "open", fs::perms::all);  // 0777, no sticky bit
  Status s = write_file_atomically(dir.path() / "open" / "r.json", "{}");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().describe().find("writable by others (mode 777) without the sticky bit"), std::string::npos)
      << s.error().describe();
  fs::permissions(dir.path() / "open", fs::perms::all | fs::perms::sticky_bit);  // as /tmp: allowed
  EXPECT_TRUE(write_file_atomically(dir.path() / "open" / "r.json", "{}"));
  if (::geteuid() != 0) return;
  fs::create_directories(dir.path() / "theirs");
  ASSERT_EQ(::chown((dir.path() / "theirs").c_str(), kOtherUser, kOtherUser), 0);
  s = write_file_atomically(dir.path() / "theirs" / "r.json", "{}");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().describe().find("the folder belongs to uid 4242"), std::string::npos) << s.error().describe();
}

// Issue 29, 2: an output never replaces a link, a FIFO or a device (one made for
// the test, never the real /dev), and the refusal says what is there.
TEST(OutputPath, NeverReplacesALinkAFifoOrADevice) {
  testing::TempDir dir;
  auto target = dir.write("target.txt", "keep me");
  fs::create_symlink(target, dir.path() / "link.xml");
  Status s = write_file_atomically(dir.path() / "link.xml", "<x/>");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().describe().find("link.xml: refused to write there: it is a symbolic link, which an output never "
                                      "replaces"),
            std::string::npos)
      << s.error().describe();
  EXPECT_TRUE(fs::is_symlink(dir.path() / "link.xml"));
  EXPECT_EQ(read(target), "keep me");
  ASSERT_EQ(::mkfifo((dir.path() / "fifo.json").c_str(), 0600), 0);
  s = write_file_atomically(dir.path() / "fifo.json", "{}");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().describe().find("it is a FIFO"), std::string::npos) << s.error().describe();
  EXPECT_TRUE(fs::is_fifo(dir.path() / "fifo.json"));
  auto append = open_output_for_append(dir.path() / "fifo.json");  // refused without blocking on the FIFO
  ASSERT_FALSE(append);
  EXPECT_NE(append.error().describe().find("it is a FIFO"), std::string::npos);
  append = open_output_for_append(dir.path() / "link.xml");
  ASSERT_FALSE(append);
  EXPECT_NE(append.error().describe().find("it is a symbolic link"), std::string::npos);
  if (::geteuid() != 0) return;
  auto device = dir.path() / "null";  // a device node like /dev/null, made here
  ASSERT_EQ(::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  s = write_file_atomically(device, "{}");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().describe().find("it is a character device"), std::string::npos) << s.error().describe();
  EXPECT_TRUE(fs::is_character_file(device));
}

// Issue 29, 11: an output path equal to one of the run's inputs (--log-file CONFIG,
// analyze --output <trace>) is refused, and the input stays as it was.
TEST(OutputPath, NeverReplacesAnInput) {
  // Static: a registration lasts as long as the process, so the file must too; once
  // deleted, its inode may be a later test's file, refused then as an input.
  static testing::TempDir dir;
  auto config = dir.write("config.json", "{\"input\": true}");
  register_input(config);
  Status s = write_file_atomically(config, "log");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().describe().find("it is one of this run's inputs"), std::string::npos) << s.error().describe();
  EXPECT_EQ(read(config), "{\"input\": true}");
  auto append = open_output_for_append(config);
  EXPECT_FALSE(append);
  EXPECT_EQ(read(config), "{\"input\": true}");
}

TEST(OutputPath, AppendCreatesAndAppends) {
  testing::TempDir dir;
  for (const char* line : {"one\n", "two\n"}) {
    auto fd = open_output_for_append(dir.path() / "live" / "x.log");
    ASSERT_TRUE(fd) << fd.error().describe();
    ASSERT_EQ(::write(*fd, line, 4), 4);
    ::close(*fd);
  }
  EXPECT_EQ(read(dir.path() / "live" / "x.log"), "one\ntwo\n");
}

// Issue 31, 4: a report path is probed before the run: its folder is made, nothing is
// left behind, and a path that could not take the file is refused naming it.
TEST(OutputPath, ProbeMakesTheFolderAndLeavesNothing) {
  testing::TempDir dir;
  const fs::path report = dir.path() / "reports" / "junit.xml";
  ASSERT_TRUE(probe_output_file(report));
  EXPECT_TRUE(fs::is_directory(dir.path() / "reports"));
  EXPECT_TRUE(fs::is_empty(dir.path() / "reports"));  // neither the probe nor the report

  std::ofstream(dir.path() / "a_file") << "x";
  Status under_file = probe_output_file(dir.path() / "a_file" / "junit.xml");
  ASSERT_FALSE(under_file);
  EXPECT_NE(under_file.error().describe().find((dir.path() / "a_file").string()), std::string::npos)
      << under_file.error().describe();
  fs::create_directory(dir.path() / "a_folder");
  Status folder = probe_output_file(dir.path() / "a_folder");
  ASSERT_FALSE(folder);
  EXPECT_NE(folder.error().describe().find("a folder"), std::string::npos) << folder.error().describe();
}

}  // namespace
}  // namespace aorta
