#include "job/collect.h"

#include <gtest/gtest.h>

namespace aorta::job {
namespace {

std::string listing(std::initializer_list<std::pair<const char*, std::string>> entries) {
  std::string out;
  for (const auto& [mtime, path] : entries) out += std::string(mtime) + "\t" + path + std::string(1, '\0');
  return out;
}

TEST(Collect, ListingRefusesPathsThatLeaveTheTree) {
  std::vector<std::string> rejected;
  auto files = parse_file_listing(
      listing({{"10.5", "out/torch_profiler/rank0/a.json"}, {"11", "../etc/passwd"}, {"12", "/etc/shadow"},
               {"13", "out/torch_profiler/../../x"}, {"14", "out/torch_profiler/rank0/bad\nname"},
               {"15", "out/torch_profiler/rank0/we'ird $(touch x) ..name.txt"}}),
      rejected);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, "out/torch_profiler/rank0/a.json");
  EXPECT_DOUBLE_EQ(files[0].mtime, 10.5);
  EXPECT_EQ(files[1].path, "out/torch_profiler/rank0/we'ird $(touch x) ..name.txt");
  EXPECT_EQ(rejected.size(), 4u);
}

TEST(Collect, ListingSurvivesAStrayStderrLine) {
  std::vector<std::string> rejected;
  auto files = parse_file_listing("WARN[0000] some engine warning\n" + listing({{"10.5", "o/torch_profiler/r0/a.json"}}),
                                  rejected);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_DOUBLE_EQ(files[0].mtime, 10.5);
  EXPECT_TRUE(rejected.empty());
}

TEST(Collect, NewestTracePerDirectoryOthersKept) {
  std::vector<FreshFile> files = {{1, "t/torch_profiler/rank0/old.pt.trace.json"},
                                  {2, "t/torch_profiler/rank0/new.pt.trace.json.gz"},
                                  {3, "t/torch_profiler/rank0/notes.txt"},
                                  {1, "t/torch_profiler/rank1/only.pt.trace.json"}};
  auto dropped = keep_newest_per_directory(files);
  ASSERT_EQ(dropped, std::vector<std::string>{"t/torch_profiler/rank0/old.pt.trace.json"});
  std::vector<std::string> kept;
  for (const auto& f : files) kept.push_back(f.path);
  std::sort(kept.begin(), kept.end());
  EXPECT_EQ(kept, (std::vector<std::string>{"t/torch_profiler/rank0/new.pt.trace.json.gz",
                                            "t/torch_profiler/rank0/notes.txt",
                                            "t/torch_profiler/rank1/only.pt.trace.json"}));
}

}  // namespace
}  // namespace aorta::job
