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

// The working directory for one test, restored after it.
class InFolder {
 public:
  explicit InFolder(const std::filesystem::path& dir) : old_(std::filesystem::current_path()) {
    std::filesystem::current_path(dir);
  }
  ~InFolder() { std::filesystem::current_path(old_); }

 private:
  std::filesystem::path old_;
};

// Issue 45, 4: `--config_file local_cpu_single.json` from an empty CI workspace is the
// shipped file, said with its full path; the working directory's file wins and says
// what it shadows; a path with a folder is the loader's to refuse; a name found nowhere
// says where it looked and how to list and copy the shipped files.
TEST(ShippedConfigs, ABareNameIsTheWorkingDirectorysFileElseTheShippedOne) {
  aorta::testing::TempDir data, work;
  const auto shipped = data.write("config/local_cpu_single.json", "{}");
  DataFolder folder(data.path().string());
  InFolder in(work.path());
  auto found = find_named_file("--config_file", "local_cpu_single.json");
  ASSERT_TRUE(found.ok()) << found.error().message;
  EXPECT_EQ(found->path, shipped);
  EXPECT_EQ(found->note, "--config_file local_cpu_single.json: the shipped " + shipped.string() +
                             " (none in the working directory)");

  work.write("local_cpu_single.json", "{}");
  found = find_named_file("--config_file", "local_cpu_single.json");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->path, "local_cpu_single.json");
  EXPECT_EQ(found->note, "--config_file local_cpu_single.json: " + (work.path() / "local_cpu_single.json").string() +
                             " from the working directory (it shadows the shipped " + shipped.string() + ")");
  work.write("mine.json", "{}");
  EXPECT_EQ(find_named_file("--config_file", "mine.json")->note, "");  // not a shipped name: nothing to say
  EXPECT_EQ(find_named_file("--cluster_file", "sub/local_cpu_single.json")->path, "sub/local_cpu_single.json");

  auto missing = find_named_file("--cluster_file", "cluster.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message,
            "--cluster_file cluster.json: not found in the working directory (" + work.path().string() +
                "), and no shipped config named 'cluster.json'; shipped configs:\n  local_cpu_single.json\n"
                "  `aorta_suite config list` lists the shipped files; `aorta_suite config copy NAME --output FILE` "
                "copies one to edit");
}

}  // namespace
}  // namespace aorta::config
