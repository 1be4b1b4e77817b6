#include "job/collect.h"
#include "job/copy_check.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "job/phase.h"
#include "tests/temp_dir.h"

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

// This machine as one node with a repository at <tmp>/repo, run id "mine" and its
// collection folder at <tmp>/out; `find` may be replaced by a script for one collection.
struct LocalRepo {
  aorta::testing::TempDir dir;
  config::Variant v;
  config::Cluster c = config::local_cluster("tester");
  cluster::LocalTransport local;
  RunState state;
  LocalRepo() {
    v.aorta_path = (dir.path() / "repo").string();
    v.container.runtime = config::RuntimeKind::kNone;
    state.run_id = "mine";
    state.output_root = dir.path() / "out";
  }
  std::vector<std::string> collect(bool combined = false) {
    NodeExec exec(local, v, c);
    return collect_traces(exec, state, combined);
  }
  std::vector<std::string> snapshot() {
    NodeExec exec(local, v, c);
    return snapshot_existing_traces(exec, state);
  }
  // A collection with `find` replaced by a bash script (a node's own find as a test
  // makes it behave), the real one at /usr/bin/find.
  std::vector<std::string> collect_with_find(const std::string& script) {
    auto bin = dir.path() / "bin";
    std::filesystem::create_directories(bin);
    auto fake = dir.write("bin/find", "#!/bin/bash\n" + script + "\n");
    std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
    const std::string old_path = std::getenv("PATH");
    ::setenv("PATH", (bin.string() + ":" + old_path).c_str(), 1);
    auto notes = collect();
    ::setenv("PATH", old_path.c_str(), 1);
    return notes;
  }
};

// Issue 14: a run collects only its own output folder, even when another run of the
// same user wrote fresher traces into the shared repository at the same time.
TEST(Collect, RunCollectsOnlyItsOwnOutputFolder) {
  LocalRepo r;
  auto& dir = r.dir;
  auto& state = r.state;
  state.output_root = dir.path() / "out" / "mine";
  dir.write("repo/.cvs-aorta/mine/node_0/benchmark.log", "log");
  r.snapshot();
  EXPECT_TRUE(state.traces_before["localhost"].empty());  // nothing of this run existed before it
  dir.write("repo/.cvs-aorta/mine/output/torch_profiler/rank0/mine.pt.trace.json", "{}");
  // The other run's, newer than ours, in the repository and in its own folder.
  auto other = dir.write("repo/artifacts/local_cpu/torch_profiler/rank0/other.pt.trace.json", "{}");
  dir.write("repo/.cvs-aorta/theirs/output/torch_profiler/rank0/theirs.pt.trace.json", "{}");
  std::filesystem::last_write_time(other, std::filesystem::file_time_type::clock::now() + std::chrono::seconds(5));
  r.collect();
  EXPECT_TRUE(state.collection_errors.empty());
  ASSERT_EQ(state.artifacts.count("torch_traces"), 1u);
  EXPECT_EQ(state.artifacts["torch_traces"], state.output_root / "traces" / "output" / "torch_profiler");
  std::vector<std::string> got;
  for (const auto& e : std::filesystem::recursive_directory_iterator(state.output_root))
    if (e.is_regular_file()) got.push_back(std::filesystem::relative(e.path(), state.output_root).string());
  // zstd is on this machine: the trace came compressed and stays so.
  EXPECT_EQ(got, std::vector<std::string>{"traces/output/torch_profiler/rank0/mine.pt.trace.json.zst"});
}

// Issue 28: Aorta's own launch scripts pass train.py the config alone, so the output
// override never arrives and the traces land where the YAML says. The whole
// repository is walked; earlier runs' traces, the suite's folders, an earlier
// collection's copy and links are named as skipped, each with why.
TEST(Collect, LauncherThatDropsTheOverrideIsFoundInTheRepository) {
  LocalRepo r;
  auto& dir = r.dir;
  auto& state = r.state;
  r.v.base_config = "config/profile_overlap_2gpu.yaml";
  state.output_root = dir.path() / "out" / "mine";
  // An earlier run of the real launcher, in the same rank folder; an earlier run of
  // the suite's folder; an earlier collection copied into the repository.
  dir.write("repo/artifacts/p/torch_profiler/rank0/host_1.100.pt.trace.json", "{}");
  dir.write("repo/.cvs-aorta/earlier/output/torch_profiler/rank0/e.pt.trace.json", "{}");
  dir.write("repo/.cvs-aorta/mine/node_0/benchmark.log", "log");
  // An earlier collection's copies in a run folder (<output_dir>/<run-id>/...), as a
  // suite started inside the checkout leaves them; a user's own folder of that name is walked.
  dir.write("repo/aorta_results/0123456789abcdef0123456789abcdef/combined_traces/node_0/torch_profiler/rank0/c.pt.trace.json",
            "{}");
  dir.write("repo/aorta_results/fedcba9876543210fedcba9876543210/traces/artifacts/p/torch_profiler/rank0/t.pt.trace.json",
            "{}");
  r.snapshot();
  EXPECT_EQ(state.traces_before["localhost"].size(), 1u);  // the stale trace; the pruned folders are not read
  EXPECT_EQ(state.traces_before["localhost"].count("artifacts/p/torch_profiler/rank0/host_1.100.pt.trace.json"), 1u);
  // This run, written by the launcher where the YAML says: two ranks, and a link.
  dir.write("repo/artifacts/p/torch_profiler/rank0/host_2.200.pt.trace.json", "{\"r\": 0}");
  dir.write("repo/artifacts/p/torch_profiler/rank1/host_3.300.pt.trace.json", "{\"r\": 1}");
  std::filesystem::create_symlink("/etc/hostname", dir.path() / "repo/artifacts/p/torch_profiler/rank1/link.json");
  auto notes = r.collect();
  EXPECT_TRUE(state.collection_errors.empty()) << state.collection_errors.front().second;
  ASSERT_EQ(state.artifacts.count("torch_traces"), 1u);
  EXPECT_EQ(state.artifacts["torch_traces"], state.output_root / "traces" / "artifacts/p/torch_profiler");
  std::vector<std::string> got;
  for (const auto& e : std::filesystem::recursive_directory_iterator(state.output_root))
    if (e.is_regular_file()) got.push_back(std::filesystem::relative(e.path(), state.output_root).string());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"traces/artifacts/p/torch_profiler/rank0/host_2.200.pt.trace.json.zst",
                                           "traces/artifacts/p/torch_profiler/rank1/host_3.300.pt.trace.json.zst"}));
  std::string log;
  for (const auto& n : notes) log += n + "\n";
  EXPECT_NE(log.find("localhost: found 2 file(s) of this run in artifacts/p/torch_profiler\n"), std::string::npos) << log;
  EXPECT_NE(log.find("localhost: skipped .cvs-aorta/earlier: the suite's own folder of another run"), std::string::npos)
      << log;
  for (const char* copy : {"0123456789abcdef0123456789abcdef/combined_traces", "fedcba9876543210fedcba9876543210/traces"})
    EXPECT_NE(log.find(std::string("localhost: skipped aorta_results/") + copy + ": an earlier collection's copy: never "
                       "collected\n"),
              std::string::npos)
        << log;
  EXPECT_NE(log.find("localhost: skipped artifacts/p/torch_profiler/rank1/link.json: not a regular file"),
            std::string::npos) << log;
  EXPECT_NE(log.find("localhost: skipped artifacts/p/torch_profiler/rank0/host_1.100.pt.trace.json: there before the "
                     "benchmark started, unchanged"),
            std::string::npos) << log;
  EXPECT_EQ(log.find("benchmark.log"), std::string::npos) << log;  // not a candidate at all
}

// Nothing fresh anywhere: the error says where it looked, and what to check.
TEST(Collect, NothingFreshSaysWhereItLooked) {
  LocalRepo r;
  auto& dir = r.dir;
  auto& state = r.state;
  const auto& v = r.v;
  r.v.base_config = "config/x.yaml";
  dir.write("repo/artifacts/x/torch_profiler/rank0/old.pt.trace.json", "{}");
  state.trace_floor["localhost"] = 4e9;  // every file is older
  auto notes = r.collect();
  ASSERT_EQ(state.collection_errors.size(), 1u);
  EXPECT_EQ(state.collection_errors[0].second,
            "No fresh torch_profiler files found under " + v.aorta_path +
                ": 1 file(s) and 0 folder(s) skipped, each named with why in the stage log. The workload writes its traces to "
                "<training.output_dir>/torch_profiler, as config/x.yaml sets it, relative to the folder it starts in: "
                "keep that folder inside aorta_path");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "localhost: skipped artifacts/x/torch_profiler/rank0/old.pt.trace.json: older than this run "
                      "(written before 2096-10-02 07:06:40 UTC)");
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

// After review (issue 28): a folder find cannot read (another user's, 0700) costs only
// itself, and what find said is in the stage log; a link to a folder is named, never
// followed; a stale file with a name no copy may take is named, not a failure, while a
// fresh one still fails the node; a folder of stale traces is one line of the log.
TEST(Collect, AWalkThatCannotReadEverythingStillCollects) {
  LocalRepo r;
  auto& dir = r.dir;
  auto& state = r.state;
  const auto& v = r.v;
  for (int i = 0; i < 30; ++i)
    dir.write("repo/old/torch_profiler/rank0/host_" + std::to_string(i) + ".pt.trace.json", "{}");
  dir.write("repo/old/torch_profiler/rank0/we\nird.json", "{}");
  dir.write("repo/elsewhere/torch_profiler/rank0/x.json", "{}");
  std::filesystem::create_symlink(dir.path() / "repo/elsewhere", dir.path() / "repo/artifacts");
  EXPECT_TRUE(r.snapshot().empty());
  dir.write("repo/.cvs-aorta/mine/output/torch_profiler/rank0/t.pt.trace.json", "{}");
  // find as a node without read access to one folder has it: the files it can read,
  // a complaint on stderr, exit 1.
  auto notes = r.collect_with_find("/usr/bin/find \"$@\"; echo \"find: './data/tmpabc': Permission denied\" >&2; exit 1");
  std::string log;
  for (const auto& n : notes) log += n + "\n";
  EXPECT_TRUE(state.collection_errors.empty()) << state.collection_errors.front().second << "\n" << log;
  EXPECT_EQ(state.artifacts["torch_traces"], state.output_root / "traces" / "output" / "torch_profiler");
  EXPECT_NE(log.find("localhost: the walk of " + v.aorta_path + " could not read everything; traces there are not seen: "
                     "find: './data/tmpabc': Permission denied"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("localhost: skipped artifacts: a link to a folder: never followed"), std::string::npos) << log;
  // The 30 stale traces and the odd name: one line each reason, the name escaped.
  EXPECT_NE(log.find("localhost: skipped old/torch_profiler/rank0/"), std::string::npos) << log;
  EXPECT_NE(log.find(" and 28 more (31 entries): there before the benchmark started, unchanged\n"), std::string::npos)
      << log;
  EXPECT_EQ(log.find("we\nird"), std::string::npos) << log;
  EXPECT_LE(notes.size(), 6u) << log;
  // The same odd name written by this run: the node fails, naming it escaped.
  dir.write("repo/.cvs-aorta/mine/output/torch_profiler/rank1/we\x1b]52;c;eA==\x07.json", "{}");
  state.artifacts.clear();
  r.collect();
  ASSERT_EQ(state.collection_errors.size(), 1u);
  EXPECT_EQ(state.collection_errors[0].second,
            "refused unsafe artifact path(s): .cvs-aorta/mine/output/torch_profiler/rank1/we\\x1b]52;c;eA==\\x07.json");
}

// Issue 29, 9: a lying node's listing without a size (or an absurd one) would turn the
// size check of its copies off: the node is refused, naming the file.
TEST(Collect, AListingWithoutSizesIsRefused) {
  LocalRepo r;
  auto& state = r.state;
  r.dir.write("repo/.cvs-aorta/mine/output/torch_profiler/rank0/t.pt.trace.json", "{}");
  r.collect_with_find("/usr/bin/find \"${@//%s/-1}\"");  // a lying node: every size printed as -1
  ASSERT_EQ(state.collection_errors.size(), 1u);
  EXPECT_EQ(state.collection_errors[0].second, "the node listed no size for .cvs-aorta/mine/output/torch_profiler/rank0/"
                                               "t.pt.trace.json: no copy is taken that cannot be checked");
  EXPECT_EQ(state.artifacts.count("torch_traces"), 0u);
}

TEST(Collect, ManySkippedFoldersEndInACount) {
  TraceSelection s;
  for (int i = 0; i < 20; ++i) s.skipped.push_back({"r/torch_profiler/rank" + std::to_string(i) + "/a.json", "stale"});
  auto lines = describe_selection("n1", s);
  ASSERT_EQ(lines.size(), 13u);
  EXPECT_EQ(lines.back(), "n1: skipped 8 more entries in 8 more folder(s), for the same kinds of reason");
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

// Issue 21: traces compressed on the node, by what the node has. A node's tools are
// what its PATH offers: a folder of links to the real programs stands in for a
// node without zstd (or without either).
class CollectCompression : public ::testing::Test {
 protected:
  CollectCompression() : old_path_(std::getenv("PATH") ? std::getenv("PATH") : "") {
    v_.aorta_path = (dir_.path() / "repo").string();
    v_.container.runtime = config::RuntimeKind::kNone;
    state_.run_id = "r";
    state_.output_root = dir_.path() / "out";
    // 3 MB of trace-like text, with a line number so it is not one repeated block.
    for (int i = 0; i < 40000; ++i)
      trace_ += "{\"name\": \"kernel_" + std::to_string(i % 97) + "\", \"ts\": " + std::to_string(i * 13) + "},\n";
    dir_.write("repo/.cvs-aorta/r/output/torch_profiler/rank0/t.pt.trace.json", trace_);
    dir_.write("repo/.cvs-aorta/r/output/torch_profiler/rank0/notes.txt", "notes\n");
  }
  ~CollectCompression() override { ::setenv("PATH", old_path_.c_str(), 1); }

  // PATH holds only these programs (plus `extra` scripts: name -> body).
  void only_programs(std::initializer_list<const char*> names, std::map<std::string, std::string> extra = {}) {
    auto bin = dir_.path() / "bin";
    std::filesystem::create_directories(bin);
    for (const char* name : names) {
      std::string found = find_program(name);
      ASSERT_FALSE(found.empty()) << name;
      std::filesystem::create_symlink(found, bin / name);
    }
    for (const auto& [name, body] : extra) {
      auto script = dir_.write("bin/" + name, "#!/bin/bash\n" + body + "\n");
      std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    }
    ::setenv("PATH", bin.c_str(), 1);
  }
  std::string find_program(const std::string& name) const {
    for (const char* d : {"/usr/bin", "/bin", "/usr/local/bin"})
      if (std::filesystem::exists(std::filesystem::path(d) / name)) return (std::filesystem::path(d) / name).string();
    return "";
  }
  std::vector<std::string> collect(std::chrono::milliseconds progress_every = kProgressEvery) {
    cluster::LocalTransport local;
    NodeExec exec(local, v_, c_);
    collect_traces(exec, state_, false, [&](const std::string& line) { lines_.push_back(line); }, progress_every);
    std::vector<std::string> got;
    for (const auto& e : std::filesystem::recursive_directory_iterator(state_.output_root))
      if (e.is_regular_file()) got.push_back(std::filesystem::relative(e.path(), state_.output_root).string());
    std::sort(got.begin(), got.end());
    return got;
  }
  // The copy decompressed by the system's own tool.
  std::string decompressed(const std::string& tool, const std::string& relative) const {
    std::string command = "/usr/bin/" + tool + " -dc " + (state_.output_root / relative).string();
    std::string out;
    FILE* pipe = ::popen(command.c_str(), "r");
    char buffer[65536];
    for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
    ::pclose(pipe);
    return out;
  }
  std::string errors() const {
    std::string all;
    for (const auto& [host, message] : state_.collection_errors) all += host + ": " + message + "\n";
    return all;
  }

  aorta::testing::TempDir dir_;
  std::string old_path_;
  config::Variant v_;
  config::Cluster c_ = config::local_cluster("tester");
  RunState state_;
  std::string trace_;
  std::vector<std::string> lines_;
  const std::string kTrace = "traces/output/torch_profiler/rank0/t.pt.trace.json";
  const std::string kNotes = "traces/output/torch_profiler/rank0/notes.txt";
};

TEST_F(CollectCompression, ZstdWhereTheNodeHasIt) {
  auto got = collect();
  EXPECT_EQ(errors(), "");
  EXPECT_EQ(got, (std::vector<std::string>{kNotes, kTrace + ".zst"}));
  EXPECT_EQ(decompressed("zstd", kTrace + ".zst"), trace_);
  EXPECT_LT(std::filesystem::file_size(state_.output_root / (kTrace + ".zst")), trace_.size() / 5);
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_NE(lines_[0].find("[collect] 1/1 nodes: localhost 2/2 file(s), "), std::string::npos) << lines_[0];
  EXPECT_NE(lines_[0].find(fmt::format("{:.1f} MB of traces", (trace_.size() + 6) / 1e6)), std::string::npos) << lines_[0];
  EXPECT_NE(lines_[0].find(", zstd)"), std::string::npos) << lines_[0];
}

TEST_F(CollectCompression, GzipWhereTheNodeHasNoZstd) {
  only_programs({"bash", "find", "gzip"});
  auto got = collect();
  EXPECT_EQ(errors(), "");
  EXPECT_EQ(got, (std::vector<std::string>{kNotes, kTrace + ".gz"}));
  EXPECT_EQ(decompressed("gzip", kTrace + ".gz"), trace_);
}

TEST_F(CollectCompression, PlainWhereTheNodeHasNeither) {
  only_programs({"bash", "find"});
  auto got = collect();
  EXPECT_EQ(errors(), "");
  EXPECT_EQ(got, (std::vector<std::string>{kNotes, kTrace}));
  std::ifstream in(state_.output_root / kTrace, std::ios::binary);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), trace_);
}

TEST_F(CollectCompression, PlainWhenTheConfigAsks) {
  v_.trace_compression = "none";
  EXPECT_EQ(collect(), (std::vector<std::string>{kNotes, kTrace}));
  EXPECT_EQ(errors(), "");
}

TEST_F(CollectCompression, AskedCompressorMissingNamesTheNode) {
  v_.trace_compression = "zstd";
  only_programs({"bash", "find", "gzip"});
  EXPECT_EQ(collect(), std::vector<std::string>{});
  EXPECT_EQ(errors(), "localhost: trace_compression is zstd but localhost has no zstd (it has: gzip)\n");
  EXPECT_EQ(state_.artifacts.count("torch_traces"), 0u);
}

// A stream damaged on the way: the frame's checksum (or its structure) fails, the
// copy is removed and the failure names the file.
TEST_F(CollectCompression, CorruptedStreamFailsNamingTheFile) {
  only_programs({"bash", "find", "head", "tail"},
                {{"zstd", "/usr/bin/zstd \"$@\" > \"$0.tmp\"; head -c 1000 \"$0.tmp\"; printf 'XXXX'; tail -c +1005 \"$0.tmp\""}});
  auto got = collect();
  EXPECT_EQ(got, std::vector<std::string>{kNotes});  // copied before the trace; the damaged copy is gone
  EXPECT_NE(errors().find("localhost: copy of .cvs-aorta/r/output/torch_profiler/rank0/t.pt.trace.json failed its check: the "
                          "compressed copy "), std::string::npos) << errors();
  EXPECT_NE(errors().find(" is damaged: "), std::string::npos) << errors();
  EXPECT_EQ(state_.artifacts.count("torch_traces"), 0u);
}

// A well-formed stream of other bytes than the node listed (the file changed).
TEST_F(CollectCompression, SizeMismatchFailsNamingTheFile) {
  only_programs({"bash", "find", "cat", "head"},
                {{"zstd", "head -c -9 \"${@: -1}\" | /usr/bin/zstd -1 -q -c"}});
  auto got = collect();
  EXPECT_EQ(got, std::vector<std::string>{kNotes});
  EXPECT_EQ(errors(), fmt::format("localhost: copy of .cvs-aorta/r/output/torch_profiler/rank0/t.pt.trace.json holds {} bytes, the "
                                  "node listed {} (changed while it was copied?)\n",
                                  trace_.size() - 9, trace_.size()));
}

// Issue 29 (9), a lying node: a stream that decompresses past the listed size is
// stopped right there (4 MiB of zstd can hold 128 GiB), and one that sends more
// bytes than any compression of the listed size takes is stopped as it arrives
// (`yes` never ends). Neither copy is left behind.
TEST_F(CollectCompression, AGrownFileStopsAtTheListedSize) {
  only_programs({"bash", "find", "cat"}, {{"zstd", "{ cat \"${@: -1}\"; echo appended; } | /usr/bin/zstd -1 -q -c"}});
  EXPECT_EQ(collect(), std::vector<std::string>{kNotes});
  EXPECT_NE(errors().find(fmt::format("decompresses to more than the {} bytes the node listed", trace_.size())),
            std::string::npos) << errors();
}

TEST_F(CollectCompression, ADecompressionBombStopsAtTheListedSize) {
  only_programs({"bash", "find", "head"}, {{"zstd", "head -c 1073741824 /dev/zero | /usr/bin/zstd -1 -q -c"}});
  EXPECT_EQ(collect(), std::vector<std::string>{kNotes});
  EXPECT_NE(errors().find(fmt::format("decompresses to more than the {} bytes the node listed", trace_.size())),
            std::string::npos) << errors();
  EXPECT_EQ(state_.artifacts.count("torch_traces"), 0u);
}

TEST_F(CollectCompression, AnEndlessStreamStopsAtWhatTheListedSizeCanTake) {
  only_programs({"bash", "find", "yes"}, {{"zstd", "yes"}});
  EXPECT_EQ(collect(), std::vector<std::string>{kNotes});
  EXPECT_NE(errors().find(fmt::format("copy of .cvs-aorta/r/output/torch_profiler/rank0/t.pt.trace.json failed: the node "
                                      "sent more than the {} bytes t.pt.trace.json.zst may take",
                                      max_compressed_bytes(trace_.size()))),
            std::string::npos) << errors();
  EXPECT_EQ(state_.artifacts.count("torch_traces"), 0u);
}

// A node busy with one file for a while says how far it has come, with the bytes
// of the file it is writing: the fake zstd writes 3 bytes, then waits.
TEST_F(CollectCompression, LongCopyGetsProgressLines) {
  only_programs({"bash", "find", "sleep"}, {{"zstd", "printf abc; sleep 1.5; exit 3"}});
  collect(std::chrono::milliseconds(400));
  ASSERT_GE(lines_.size(), 3u) << ::testing::PrintToString(lines_);
  EXPECT_NE(lines_[0].find("[collect] still copying: localhost 1/2 file(s), 0.0 MB in "), std::string::npos) << lines_[0];
  EXPECT_NE(lines_[0].find("; 0.0 MB of traces ("), std::string::npos) << lines_[0];
  EXPECT_NE(lines_.back().find("[collect] 1/1 nodes: localhost 1/2 file(s), 0.0 MB in "), std::string::npos) << lines_.back();
  EXPECT_NE(lines_.back().find(", stopped by a failure; elapsed "), std::string::npos) << lines_.back();
}

// The compressor failing on the node: its exit code and stderr in the error.
TEST_F(CollectCompression, CompressorFailureKeepsItsMessage) {
  only_programs({"bash", "find"}, {{"zstd", "echo 'zstd: out of memory' >&2; exit 9"}});
  collect();
  EXPECT_EQ(errors(), "localhost: zstd of .cvs-aorta/r/output/torch_profiler/rank0/t.pt.trace.json on the node failed (exit 9): "
                      "zstd: out of memory\n");
}

}  // namespace
}  // namespace aorta::job
