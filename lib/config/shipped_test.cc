// The shipped files' listing: names from the data folder, or an error naming where
// the folder was looked for (issue 32, 8: it listed nothing and exited 0).
#include "config/shipped.h"

#include <cstdlib>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "tests/temp_dir.h"

namespace aorta::config {
namespace {

// AORTA_SUITE_DATA set for one test, restored after it.
class DataFolder {
 public:
  explicit DataFolder(const std::string& value) {
    if (const char* old = std::getenv("AORTA_SUITE_DATA")) old_ = old;
    setenv("AORTA_SUITE_DATA", value.c_str(), 1);
  }
  ~DataFolder() {
    if (old_) setenv("AORTA_SUITE_DATA", old_->c_str(), 1);
    else unsetenv("AORTA_SUITE_DATA");
  }

 private:
  std::optional<std::string> old_;
};

TEST(ShippedConfigs, NamesAreTheJsonFilesSorted) {
  aorta::testing::TempDir dir;
  dir.write("config/b_threshold.json", "{}");
  dir.write("config/a.json", "{}");
  dir.write("config/notes.txt", "");
  DataFolder data(dir.path().string());
  auto names = shipped_config_names();
  ASSERT_TRUE(names.ok()) << names.error().message;
  EXPECT_EQ(*names, (std::vector<std::string>{"a.json", "b_threshold.json"}));
}

TEST(ShippedConfigs, NoFolderIsAnErrorNamingWhereItLooked) {
  aorta::testing::TempDir dir;
  DataFolder data(dir.path().string());
  auto names = shipped_config_names();
  ASSERT_FALSE(names.ok());
  EXPECT_EQ(names.error().message, "AORTA_SUITE_DATA=" + dir.path().string() + " has no config/ folder");
}

// Audit G2: the guide's path form, `config copy benchmark/aorta/<file>`, copies the
// shipped file of that name, as a bare name does; a path to a file not shipped is refused.
TEST(ShippedConfigs, TheGuidesPathFormNamesTheShippedFile) {
  aorta::testing::TempDir dir;
  dir.write("config/mi3xx_single.json", "{\"shipped\": true}");
  DataFolder data(dir.path().string());
  auto by_path = shipped_config("benchmark/aorta/mi3xx_single.json");
  ASSERT_TRUE(by_path.ok()) << by_path.error().message;
  EXPECT_EQ(*by_path, dir.path() / "config" / "mi3xx_single.json");
  ASSERT_TRUE(copy_shipped_config("benchmark/aorta/mi3xx_single.json", dir.path() / "copy.json"));
  std::ifstream copied(dir.path() / "copy.json");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(copied), {}), "{\"shipped\": true}");
  auto unknown = shipped_config("benchmark/aorta/other.json");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message.rfind("no shipped config named 'benchmark/aorta/other.json'; shipped configs:\n"
                                          "  mi3xx_single.json",
                                          0),
            0u)
      << unknown.error().message;
}

}  // namespace
}  // namespace aorta::config
