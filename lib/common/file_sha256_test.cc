#include "common/file_sha256.h"

#include <gtest/gtest.h>

#include "tests/temp_dir.h"

namespace aorta {
namespace {

// FIPS 180-2's example ("abc"), a file larger than one read, and no file.
TEST(FileSha256, MatchesTheStandardsExampleAndNamesAFileItCannotRead) {
  aorta::testing::TempDir dir;
  auto abc = file_sha256(dir.write("abc", "abc"));
  ASSERT_TRUE(abc.ok());
  EXPECT_EQ(*abc, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 3 MiB of 'a' (more than the 1 MiB read): `head -c 3145728 /dev/zero | tr '\0' a | sha256sum`.
  auto big = file_sha256(dir.write("big", std::string(3 << 20, 'a')));
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(*big, "6f850bc94ae6f7de14297c01616c36d712d22864497b28a63b81d776b035e656");
  EXPECT_EQ(text_sha256("abc"), *abc);
  auto none = file_sha256(dir.path() / "none");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message.find((dir.path() / "none").string()), std::string::npos);
}

}  // namespace
}  // namespace aorta
