#include "common/regular_file.h"

#include <sys/stat.h>

#include <cerrno>

#include <gtest/gtest.h>

#include "tests/temp_dir.h"

namespace aorta {
namespace {

TEST(RegularFile, ReadsOnlyARegularFileWithinItsLimit) {
  testing::TempDir dir;
  auto file = dir.write("r.json", "{\"a\": 1}");
  FileText read = read_regular_file(file, 100, false);
  EXPECT_EQ(read.status, FileText::Status::kRead);
  EXPECT_EQ(read.text, "{\"a\": 1}");
  read = read_regular_file(file, 7, false);  // 8 bytes
  EXPECT_EQ(read.status, FileText::Status::kTooLarge);
  EXPECT_EQ(read.size, 8u);
  EXPECT_TRUE(read.text.empty());
  std::filesystem::create_symlink(file, dir.path() / "link.json");
  read = read_regular_file(dir.path() / "link.json", 100, false);
  EXPECT_EQ(read.status, FileText::Status::kNotRegular);
  EXPECT_EQ(read.detail, "a symbolic link");
  EXPECT_EQ(read_regular_file(dir.path() / "link.json", 100, true).text, "{\"a\": 1}");
  ASSERT_EQ(::mkfifo((dir.path() / "fifo").c_str(), 0600), 0);
  read = read_regular_file(dir.path() / "fifo", 100, true);  // no writer: returns at once
  EXPECT_EQ(read.status, FileText::Status::kNotRegular);
  EXPECT_EQ(read.detail, "a FIFO");
  read = read_regular_file(dir.path() / "missing", 100, true);
  EXPECT_EQ(read.status, FileText::Status::kCannotOpen);
  EXPECT_EQ(read.detail, "No such file or directory");
}

// The reader a copy uses: the open's errno kept, the bytes handed on until the taker
// says stop.
TEST(RegularFile, ReaderHandsOnChunksUntilTold) {
  testing::TempDir dir;
  auto file = dir.write("r.txt", "abcdefgh");
  RegularFileReader reader(file, false);
  ASSERT_EQ(reader.status(), FileText::Status::kRead);
  EXPECT_EQ(reader.size(), 8u);
  char buffer[3];
  std::string got;
  EXPECT_EQ(reader.read_all(buffer, [&](const char* bytes, size_t size) {
    got.append(bytes, size);
    return got.size() < 6;
  }), 0);
  EXPECT_EQ(got, "abcdef");
  RegularFileReader missing(dir.path() / "missing", true);
  EXPECT_EQ(missing.status(), FileText::Status::kCannotOpen);
  EXPECT_EQ(missing.open_error(), ENOENT);
}

}  // namespace
}  // namespace aorta
