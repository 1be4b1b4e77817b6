// aorta_suite analyze run whole (issue 29, items 8 and 11 in part): a symbolic link
// where a trace could be is named, never skipped without a word, and names from the
// disk reach the terminal printable.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/gunzip.h"
#include "tests/run_suite.h"
#include "tests/temp_dir.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::app {
namespace {

namespace fs = std::filesystem;
using aorta::testing::run_suite;
using aorta::testing::TempDir;

const fs::path kTrace = fs::path(AORTA_TEST_DATA_DIR) / "h200-torch2.11-kineto-nccl_rank0.json.gz";

// An analyze of one good trace and entries that are named, not analyzed: exit 3, each
// named on stderr and in the JSON's parse errors, the parse partial.
void expect_partial(const aorta::testing::SuiteRun& run, const fs::path& json, const std::vector<std::string>& named) {
  EXPECT_EQ(run.exit_code, 3) << run.err;
  for (const auto& line : named) EXPECT_NE(run.err.find("error: " + line + "\n"), std::string::npos) << run.err;
  std::ifstream in(json);
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(doc.is_object());
  EXPECT_EQ(doc["parse"]["status"], "partial");
  EXPECT_EQ(doc["parse"]["files_found"], 1);
  EXPECT_EQ(doc["parse"]["files_parsed"], 1);
  EXPECT_EQ(doc["parse"]["errors"], nlohmann::json(named));
}

// Links are never followed (a loop, or files outside the tree), so a linked trace is
// a rank not analyzed: a parse error naming it, the parse partial (exit 3).
TEST(AnalyzeCommand, ALinkWhereATraceCouldBeIsNamedAndTheParsePartial) {
  TempDir dir, elsewhere;
  fs::create_directories(dir.path() / "traces");
  fs::copy_file(kTrace, dir.path() / "traces" / "rank0.json.gz");
  fs::copy_file(kTrace, elsewhere.path() / "rank1.json.gz");
  fs::create_symlink(elsewhere.path() / "rank1.json.gz", dir.path() / "traces" / "rank1.json.gz");
  fs::create_directory_symlink(elsewhere.path(), dir.path() / "traces" / "more");
  const auto run = run_suite({"analyze", "traces", "--output", "out.json"}, dir.path());
  expect_partial(run, dir.path() / "out.json",
                 {"traces/more: a symbolic link, not followed; traces through it are not analyzed",
                  "traces/rank1.json.gz: a symbolic link, not followed; traces through it are not analyzed"});
}

// Issue 42, 6: a FIFO with a trace's name was skipped without a word (exit 0, one rank
// of two). Each is a named parse error, the parse partial (exit 3), as a link is; never
// opened (the open would wait for a writer), given by name too. Sockets and devices:
// TraceFiles.SpecialFilesWithATracesNameAreNamed.
TEST(AnalyzeCommand, AFifoWhereATraceCouldBeIsNamedAndTheParsePartial) {
  TempDir dir;
  fs::create_directories(dir.path() / "traces");
  fs::copy_file(kTrace, dir.path() / "traces" / "rank0.json.gz");
  ASSERT_EQ(::mkfifo((dir.path() / "traces" / "rank1.json").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((dir.path() / "traces" / "rank2.json.zst").c_str(), 0600), 0);
  const auto run = run_suite({"analyze", "traces", "--output", "out.json"}, dir.path());
  const std::string fifo = "traces/rank1.json: not a regular file (a FIFO), not opened; not analyzed";
  expect_partial(run, dir.path() / "out.json",
                 {fifo, "traces/rank2.json.zst: not a regular file (a FIFO), not opened; not analyzed"});
  const auto alone = run_suite({"analyze", "traces/rank1.json", "--output", "alone.json"}, dir.path());
  EXPECT_EQ(alone.exit_code, 1) << alone.err;  // nothing else to analyze: failed
  EXPECT_NE(alone.err.find("error: " + fifo + "\n"), std::string::npos) << alone.err;
}

// Issue 46: past 8 ranks the table is a summary and the slowest 8, saying where every
// rank is; --ranks all lists each of them; any other --ranks is a usage error.
TEST(AnalyzeCommand, RanksAllListsEveryRankPastEight) {
  TempDir dir;
  auto trace = nlohmann::json::parse(aorta::testing::gunzip(kTrace));
  for (int r = 0; r < 10; ++r) {  // the trace re-ranked: a rank is read once
    trace["distributedInfo"]["rank"] = r;
    trace["distributedInfo"]["world_size"] = 10;
    dir.write("traces/rank" + std::to_string(r) + "/t.json", trace.dump());
  }
  const auto rows = [](const std::string& table) { return std::count(table.begin(), table.end(), '\n'); };
  const auto summary = run_suite({"analyze", "traces", "--output", "a.json"}, dir.path());
  EXPECT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_NE(summary.out.find("8 of 10 ranks listed (the outliers, then the slowest); 2 left out; every rank: analyze "
                             "--ranks all"),
            std::string::npos)
      << summary.out;
  const auto every = run_suite({"analyze", "traces", "--output", "b.json", "--ranks", "all"}, dir.path());
  EXPECT_EQ(every.exit_code, 0) << every.err;
  EXPECT_EQ(every.out.find(" left out"), std::string::npos) << every.out;
  EXPECT_EQ(rows(every.out), rows(summary.out) - 2) << every.out;  // 10 rows for 3 + 8 + the left-out line
  const auto bad = run_suite({"analyze", "traces", "--ranks", "some"}, dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--ranks takes only all"), std::string::npos) << bad.err;
}

// A trace folder's name carries an escape into every error about its files.
TEST(AnalyzeCommand, NamesFromTheDiskReachTheTerminalPrintable) {
  TempDir dir;
  const std::string folder = "t\x1b[31m";
  dir.write(folder + "/rank0.json", "{\"traceEvents\": [");
  const auto run = run_suite({"analyze", folder, "--output", "o\x1b[2J.json"}, dir.path());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.err.find('\x1b'), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("t\\x1b[31m/rank0.json"), std::string::npos) << run.err;
  EXPECT_EQ(run.out, "wrote o\\x1b[2J.json (failed)\n");
}

// Issue 47, 5: a telemetry folder beside the traces is read; a damaged file is named
// on stderr and the rest used.
TEST(AnalyzeCommand, ReadsTheTelemetryBesideTheTraces) {
  TempDir dir;
  fs::create_directories(dir.path() / "run/torch_traces");
  fs::copy_file(kTrace, dir.path() / "run/torch_traces/rank0.json.gz");
  fs::copy(fs::path(AORTA_TEST_DATA_DIR) / "telemetry/run", dir.path() / "run/telemetry");
  fs::copy_file(fs::path(AORTA_TEST_DATA_DIR) / "telemetry/hostile/node-0.log", dir.path() / "run/telemetry/node-3.log");
  const auto run = run_suite({"analyze", "run/torch_traces", "--output", "out.json"}, dir.path());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("warning: GPU telemetry: node-3.log line 425: amd-smi: JSON that does not parse"),
            std::string::npos) << run.err;
  std::ifstream in(dir.path() / "out.json");
  const auto doc = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(doc.contains("telemetry")) << doc.dump().substr(0, 300);
  EXPECT_EQ(doc["telemetry"]["nodes"].size(), 4u);
  EXPECT_EQ(doc["telemetry"]["nodes"][3]["node"], "node4");
  EXPECT_EQ(doc["telemetry"]["gpus"].size(), 8u);
}

}  // namespace
}  // namespace aorta::app
