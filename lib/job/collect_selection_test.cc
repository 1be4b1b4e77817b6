// The collection's rules on given listings, without a node or a copy: the parse of
// find's records (parse_file_listing), select_traces, describe_selection and
// keep_newest_per_directory.
#include "job/collect.h"

#include <algorithm>
#include <map>

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

TEST(Collect, ListingCarriesTypesAndPrunedFolders) {
  std::vector<std::string> rejected;
  std::string nul(1, '\0');
  auto files = parse_file_listing("f\t10.5\t12\to/torch_profiler/r0/a.json" + nul + "P\t.cvs-aorta/x" + nul +
                                      "l\t11\t7\to/torch_profiler/r0/l.json" + nul + "P\t../up" + nul,
                                  rejected);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].type, 'f');
  EXPECT_EQ(files[0].size, 12);
  EXPECT_DOUBLE_EQ(files[0].mtime, 10.5);
  EXPECT_EQ(files[1].type, 'P');
  EXPECT_EQ(files[1].path, ".cvs-aorta/x");
  EXPECT_EQ(files[2].type, 'l');
  EXPECT_EQ(rejected, std::vector<std::string>{"../up"});
}

TEST(Collect, ListingCarriesTheSizeWhenGiven) {
  std::vector<std::string> rejected;
  std::string nul(1, '\0');
  auto files = parse_file_listing("10.5\t1234\to/torch_profiler/r0/a.json" + nul + "11\to/torch_profiler/r0/b.json" + nul,
                                  rejected);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, "o/torch_profiler/r0/a.json");
  EXPECT_EQ(files[0].size, 1234);
  EXPECT_EQ(files[1].path, "o/torch_profiler/r0/b.json");
  EXPECT_EQ(files[1].size, -1);
}

// Each rule of select_traces on its own, in the order they apply.
TEST(Collect, SelectionRulesInOrder) {
  std::map<std::string, double> before{{"a/torch_profiler/rank0/kept.json", 150}, {"a/torch_profiler/rank0/same.json", 160}};
  TraceSelectionRules rules;
  rules.floor = 100;
  rules.before = &before;
  rules.own_folder = ".cvs-aorta/me/";
  std::vector<FreshFile> listed = {
      {0, ".cvs-aorta/old", -1, 'P'},
      {0, ".cvs-aorta/lock", -1, 'P'},  // the checkout's lock and a takeover's gate: not named
      {0, ".cvs-aorta/takeover.abc", -1, 'P'},
      {0, "x/combined_traces", -1, 'P'},
      {200, "a/torch_profiler/rank0/link.json", 5, 'l'},
      {99, "a/torch_profiler/rank0/stale.json", 5, 'f'},
      {160, "a/torch_profiler/rank0/same.json", 5, 'f'},
      {170, "a/torch_profiler/rank0/kept.json", 5, 'f'},  // rewritten since the snapshot
      {180, "b/torch_profiler/rank0/newer_tree.json", 5, 'f'},
      {175, "a/torch_profiler/rank0/newest.json", 5, 'f'},
  };
  TraceSelection plain = select_traces(listed, rules);
  std::vector<std::string> kept;
  for (const auto& f : plain.files) kept.push_back(f.path);
  EXPECT_EQ(kept, (std::vector<std::string>{"a/torch_profiler/rank0/newest.json", "b/torch_profiler/rank0/newer_tree.json"}));
  const std::vector<std::pair<std::string, std::string>> why = {
      {".cvs-aorta/old", "the suite's own folder of another run"},
      {"x/combined_traces", "an earlier collection's copy"},
      {"a/torch_profiler/rank0/link.json", "not a regular file"},
      {"a/torch_profiler/rank0/stale.json", "older than this run (written before 1970-01-01 00:01:40 UTC)"},
      {"a/torch_profiler/rank0/same.json", "there before the benchmark started, unchanged"},
      {"a/torch_profiler/rank0/kept.json", "an older trace beside a newer one of this run"}};
  ASSERT_EQ(plain.skipped.size(), why.size());
  for (size_t k = 0; k < why.size(); ++k) {
    EXPECT_EQ(plain.skipped[k].path, why[k].first);
    EXPECT_EQ(plain.skipped[k].reason.rfind(why[k].second, 0), 0u) << plain.skipped[k].reason;
  }
  // Script mode keeps the newest tree only.
  rules.newest_tree_only = true;
  TraceSelection script = select_traces(listed, rules);
  ASSERT_EQ(script.files.size(), 1u);
  EXPECT_EQ(script.files[0].path, "b/torch_profiler/rank0/newer_tree.json");
  // A run whose workload took the override: only its own folder counts.
  listed.push_back({190, ".cvs-aorta/me/output/torch_profiler/rank0/mine.json", 5, 'f'});
  TraceSelection own = select_traces(listed, rules);
  ASSERT_EQ(own.files.size(), 1u);
  EXPECT_EQ(own.files[0].path, ".cvs-aorta/me/output/torch_profiler/rank0/mine.json");
  EXPECT_NE(own.skipped.back().reason.find("outside this run's own output folder"), std::string::npos);
}

TEST(Collect, SkippedCandidatesAreGroupedByFolderAndReason) {
  TraceSelection s;
  s.files = {{1, "o/torch_profiler/rank0/t.json"}, {1, "o/torch_profiler/rank1/t.json"}};
  for (int i = 0; i < 5; ++i) s.skipped.push_back({"o/torch_profiler/rank0/old" + std::to_string(i) + ".json", "stale"});
  s.skipped.push_back({"o/torch_profiler/rank0/l.json", "a link"});
  EXPECT_EQ(describe_selection("n1", s),
            (std::vector<std::string>{"n1: found 2 file(s) of this run in o/torch_profiler",
                                      "n1: skipped o/torch_profiler/rank0/old0.json, old1.json, old2.json and 2 more "
                                      "(5 entries): stale",
                                      "n1: skipped o/torch_profiler/rank0/l.json: a link"}));
}

TEST(Collect, ManySkippedFoldersEndInACount) {
  TraceSelection s;
  for (int i = 0; i < 20; ++i) s.skipped.push_back({"r/torch_profiler/rank" + std::to_string(i) + "/a.json", "stale"});
  auto lines = describe_selection("n1", s);
  ASSERT_EQ(lines.size(), 13u);
  EXPECT_EQ(lines.back(), "n1: skipped 8 more entries in 8 more folder(s), for the same kinds of reason");
}

}  // namespace
}  // namespace aorta::job
