// The optional analysis's reports, brought home for real: a real shell runs the
// analysis script and find, and LocalTransport copies the files.
#include "job/analysis_reports.h"

#include <sys/stat.h>
#include <utime.h>

#include <array>
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "common/shell_quote.h"
#include "stages/specs.h"
#include "tests/fake_transport.h"
#include "tests/temp_dir.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::job {
namespace {

namespace fs = std::filesystem;
using stages::StageResult;
using aorta::testing::TempDir;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void set_mtime(const fs::path& p, time_t when) {
  struct utimbuf times {when, when};
  ASSERT_EQ(utime(p.c_str(), &times), 0) << p;
}

// One bare-metal node (runtime none) on this machine: node-side paths are real paths.
struct LocalNode {
  TempDir repo, out;
  cluster::LocalTransport transport;
  config::Variant v;
  config::Cluster cluster;
  RunState state;
  LocalNode() {
    v.aorta_path = repo.path().string();
    v.container.runtime = config::RuntimeKind::kNone;
    v.timeout_seconds = 60;
    cluster.nodes = {{"localhost", "127.0.0.1", ""}};
    state.output_root = out.path();
  }
};

// One bare-metal node "n1" whose answers are scripted, with the folder /r.
struct ScriptedNode {
  aorta::testing::FakeTransport fake;
  config::Variant v;
  config::Cluster cluster;
  ScriptedNode() {
    v.container.runtime = config::RuntimeKind::kNone;
    cluster.nodes = {{"n1", "10.0.0.1", ""}};
  }
  Result<FetchedFolder> fetch(const fs::path& dest, const fs::path& output_root) {
    NodeExec exec(fake, v, cluster);
    return fetch_report_folder(exec, 0, "/r", 0, dest, output_root, std::chrono::seconds(30));
  }
};

// Audit P5: every regular file at least as new as the floor, in its place under the
// destination; older files and links stay behind.
TEST(AnalysisReports, FetchesFreshRegularFilesOnly) {
  LocalNode n;
  fs::path reports = n.repo.path() / "out" / "tracelens_analysis";
  n.repo.write("out/tracelens_analysis/individual_reports/perf_rank0.xlsx", "workbook 0");
  n.repo.write("out/tracelens_analysis/collective_report.csv", "a,b\n1,2\n");
  fs::path old = n.repo.write("out/tracelens_analysis/individual_reports/perf_rank1.xlsx", "last week's");
  set_mtime(reports / "collective_report.csv", 1'700'000'000);  // exactly at the floor: kept
  set_mtime(old, 1'699'999'999);
  fs::create_symlink("/etc/passwd", reports / "passwd");
  NodeExec exec(n.transport, n.v, n.cluster);
  fs::path dest = n.out.path() / "analysis" / "tracelens_analysis";
  fs::create_directories(dest.parent_path());
  auto got = fetch_report_folder(exec, 0, reports.string(), 1'700'000'000, dest, n.out.path(), std::chrono::seconds(30));
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(got->files, 2u);
  EXPECT_EQ(got->bytes, 10u + 8u);
  EXPECT_EQ(read(dest / "individual_reports" / "perf_rank0.xlsx"), "workbook 0");
  EXPECT_EQ(read(dest / "collective_report.csv"), "a,b\n1,2\n");
  EXPECT_FALSE(fs::exists(dest / "individual_reports" / "perf_rank1.xlsx"));
  EXPECT_EQ(got->older, std::vector<std::string>{"individual_reports/perf_rank1.xlsx"});  // named in the stage log
  EXPECT_FALSE(fs::is_symlink(dest / "passwd") || fs::exists(dest / "passwd"));
  EXPECT_FALSE(fs::exists(dest.parent_path() / ".tracelens_analysis.partial"));
}

TEST(AnalysisReports, AMissingFolderSaysSo) {
  LocalNode n;
  NodeExec exec(n.transport, n.v, n.cluster);
  auto got = fetch_report_folder(exec, 0, (n.repo.path() / "nothing here").string(), 0, n.out.path() / "a",
                                 n.out.path(), std::chrono::seconds(30));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().context, "localhost");
  EXPECT_NE(got.error().message.find("nothing here: no such folder"), std::string::npos) << got.error().message;
  EXPECT_FALSE(fs::exists(n.out.path() / "a"));
}

// A file that cannot be copied costs the whole folder, and nothing partial is left:
// the reports are either all there or not at all.
TEST(AnalysisReports, AFailedFileLeavesNoPartialTree) {
  TempDir node, out;
  ScriptedNode n;
  node.write("r/a.csv", "a");
  n.fake.serve_files("n1", node.path());
  n.fake.on("n1", "find .", 0, std::string("1.0\ta.csv") + '\0' + "2.0\tmissing.csv" + '\0');
  n.fake.on("n1", "/r/missing.csv", 65, "/r/missing.csv: No such file or directory (a link, or no longer there)");
  auto got = n.fetch(out.path() / "gemm_analysis", out.path());
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message.find("/r: missing.csv on n1 changed or was replaced by a link after it was listed; not "
                                     "copied (/r/missing.csv: No such file"),
            std::string::npos) << got.error().message;
  EXPECT_TRUE(fs::is_empty(out.path())) << "a partial tree was left";
}

// analysis/ planted as a link out of the output folder: nothing is made or removed there.
TEST(AnalysisReports, RefusesAnAnalysisFolderLinkedElsewhere) {
  TempDir out, elsewhere;
  ScriptedNode n;
  n.fake.on("n1", "find .", 0, "");
  fs::create_directory_symlink(elsewhere.path(), out.path() / "analysis");
  auto got = n.fetch(out.path() / "analysis" / "gemm_analysis", out.path());
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message.find("refused to write outside the output folder"), std::string::npos) << got.error().message;
  EXPECT_TRUE(fs::is_empty(elsewhere.path()));
}

TEST(AnalysisReports, RefusesAPathLeavingTheFolder) {
  TempDir out;
  ScriptedNode n;
  n.fake.on("n1", "find .", 0, std::string("1.0\t../../etc/passwd") + '\0');
  auto got = n.fetch(out.path() / "x", out.path());
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.error().message.find("refused unsafe path: ../../etc/passwd"), std::string::npos);
  EXPECT_TRUE(n.fake.downloads("n1").empty());
}

// Issue 42, 4: a report folder swapped for a link once the listing ended (a process
// the workload left behind does it) is not followed: the copy opens every folder from
// the checkout without following a link, so the fetch fails naming the node and the
// file, and nothing from where the link points (nor any partial tree) is kept.
TEST(AnalysisReports, AReportFolderSwappedForALinkAfterTheListingIsRefused) {
  for (const std::string swapped : {"out/tracelens_analysis/individual_reports", "out"}) {
    LocalNode n;
    fs::path reports = n.repo.path() / "out" / "tracelens_analysis";
    n.repo.write("out/tracelens_analysis/individual_reports/id_ed25519", std::string(64, 'w'));
    n.repo.write("private/out/tracelens_analysis/individual_reports/id_ed25519", std::string(64, 'K'));
    n.repo.write("private/individual_reports/id_ed25519", std::string(64, 'K'));
    const fs::path at = n.repo.path() / swapped, private_dir = n.repo.path() / "private" /
                                                 (swapped == "out" ? "out" : "individual_reports");
    // find as the node's own, then the swap.
    const fs::path bin = n.out.path().parent_path() / (n.out.path().filename().string() + "-bin");
    fs::create_directories(bin);
    std::ofstream(bin / "find") << "#!/bin/bash\n/usr/bin/find \"$@\"; rc=$?; [ -L " << shell_quote(at.string())
                                << " ] || { mv " << shell_quote(at.string()) << " " << shell_quote(at.string() + ".real")
                                << " && ln -s " << shell_quote(private_dir.string()) << " " << shell_quote(at.string())
                                << "; }; exit $rc\n";
    fs::permissions(bin / "find", fs::perms::owner_all);
    const std::string old_path = std::getenv("PATH");
    ::setenv("PATH", (bin.string() + ":" + old_path).c_str(), 1);
    NodeExec exec(n.transport, n.v, n.cluster);
    fs::path dest = n.out.path() / "analysis" / "tracelens_analysis";
    fs::create_directories(dest.parent_path());
    auto got = fetch_report_folder(exec, 0, reports.string(), 0, dest, n.out.path(), std::chrono::seconds(30));
    ::setenv("PATH", old_path.c_str(), 1);
    fs::remove_all(bin);
    ASSERT_FALSE(got.ok()) << swapped;
    EXPECT_EQ(got.error().context, "localhost");
    EXPECT_EQ(got.error().message.find(reports.string() + ": individual_reports/id_ed25519 on localhost changed or was "
                                       "replaced by a link after it was listed; not copied (" + at.string() + ": "),
              0u) << got.error().message;
    EXPECT_FALSE(fs::exists(dest));
    EXPECT_TRUE(fs::is_empty(dest.parent_path())) << "a partial tree was left";
  }
}

// The stage end to end: the script writes into <trace parent>/tracelens_analysis (the
// folder both tools share, as in the original), and the run keeps its copy under
// analysis/gemm_analysis as an artifact. With skip_if_exists an earlier run's
// reports are kept and fetched whatever their age, and the script does not run.
TEST(AnalysisReports, AnalyzeStageFetchesTheReports) {
  for (bool skip_if_exists : {false, true}) {
    SCOPED_TRACE(skip_if_exists ? "skip_if_exists" : "fresh");
    LocalNode n;
    n.v.analysis.enable_tracelens = false;  // not installed here
    n.v.analysis.enable_gemm_analysis = true;
    n.v.analysis.skip_if_exists = skip_if_exists;
    n.v.analysis.gemm_script = "scripts/gemm.sh";
    n.repo.write("scripts/gemm.sh", "mkdir -p \"$1/tracelens_analysis\" && echo 'kernel,ms' > \"$1/tracelens_analysis/gemm.csv\"\n");
    if (skip_if_exists) {
      fs::path earlier = n.repo.write("out/tracelens_analysis/gemm.csv", "earlier run");
      set_mtime(earlier, 1'000'000'000);
    }
    n.state.trace_trees["localhost"] = {"out/torch_profiler"};
    n.state.trace_floor["localhost"] = static_cast<double>(time(nullptr)) - 60;
    NodeExec exec(n.transport, n.v, n.cluster);
    stages::StageContext ctx{exec, n.state, {}};
    StageResult out = stages::kAnalyze.body(ctx);
    EXPECT_FALSE(out.failed());
    fs::path dest = n.out.path() / "analysis" / "gemm_analysis";
    ASSERT_EQ(n.state.artifacts.count("gemm_analysis"), 1u) << (out.log.empty() ? "" : out.log[0]);
    EXPECT_EQ(n.state.artifacts["gemm_analysis"], dest);
    EXPECT_EQ(read(dest / "gemm.csv"), skip_if_exists ? "earlier run" : "kernel,ms\n");
    ASSERT_EQ(out.log.size(), 1u) << out.log[0];
    EXPECT_NE(out.log[0].find("gemm_analysis: 1 report file(s)"), std::string::npos) << out.log[0];
  }
}

// The shipped H200 traces of ranks 0 and 1 collected, and rank r's TraceLens report
// (perf_rank<r>.xlsx) copied from workbooks[r] of tests/data/tracelens; then parse_results.
StageResult parse_with_reports(LocalNode& n, const std::array<const char*, 2>& workbooks) {
  const fs::path data = AORTA_TEST_DATA_DIR;
  fs::path analysis = n.out.path() / "analysis" / "tracelens_analysis";
  fs::path traces = n.out.path() / "traces" / "torch_profiler";
  fs::create_directories(analysis / "individual_reports");
  for (int r : {0, 1}) {
    fs::copy_file(data / "tracelens" / workbooks[r], analysis / "individual_reports" / ("perf_rank" + std::to_string(r) + ".xlsx"));
    std::string trace = "h200-aorta-overlap_rank" + std::to_string(r) + ".pt.trace.json.gz";
    fs::create_directories(traces / ("rank" + std::to_string(r)));
    fs::copy_file(data / trace, traces / ("rank" + std::to_string(r)) / trace);
  }
  n.state.artifacts["tracelens_analysis"] = analysis;
  n.state.artifacts["torch_traces"] = traces;
  n.state.status = RunStatus::kCompleted;
  NodeExec exec(n.transport, n.v, n.cluster);
  stages::StageContext ctx{exec, n.state, {}};
  return stages::kParseResults.body(ctx);
}

// Reference §3.3: on one node, TraceLens's Excel reports are the metrics source (the
// reports TraceLens made from the shipped H200 traces); each rank still gets its
// per-step figures from its own trace. On two nodes the raw traces are the source.
TEST(AnalysisReports, ExcelReportsAreTheSingleNodeSource) {
  for (size_t nodes : {1u, 2u}) {
    SCOPED_TRACE(std::to_string(nodes) + " node(s)");
    LocalNode n;
    if (nodes == 2) n.cluster.nodes.push_back({"second", "127.0.0.2", ""});
    StageResult out = parse_with_reports(n, {"perf_rank0.xlsx", "perf_rank1.xlsx"});
    ASSERT_FALSE(out.failed()) << out.failures[0];
    ASSERT_TRUE(n.state.parse);
    ASSERT_EQ(n.state.parse->ranks.size(), 2u);
    const auto& r0 = n.state.parse->ranks[0];
    EXPECT_EQ(r0.parser, nodes == 1 ? metrics::ParserPath::kTracelensExcel : metrics::ParserPath::kGpuTimeline);
    EXPECT_EQ(r0.source.ends_with(".xlsx"), nodes == 1) << r0.source;
    EXPECT_NEAR(r0.compute_ratio, 96.0369462890625 / 835.60212109375, 1e-6);  // the workbook's cells
    ASSERT_EQ(r0.steps.size(), 4u);                                       // ProfilerStep#3..#6
    EXPECT_NEAR(r0.steps[0].time_ms, 235.770, 0.001);
    bool said = false;
    for (const auto& note : out.log) said |= note.starts_with("Metrics from the TraceLens Excel reports: 2 of 2");
    EXPECT_EQ(said, nodes == 1);
  }
}

// A workbook that is not of this run's trace (an earlier run's, kept by
// skip_if_exists: rank 0's report under rank 1's name) gives way to the trace, and
// says so; the other rank still comes from its report.
TEST(AnalysisReports, AStaleExcelReportGivesWayToTheTrace) {
  LocalNode n;
  StageResult out = parse_with_reports(n, {"perf_rank0.xlsx", "perf_rank0.xlsx"});
  ASSERT_FALSE(out.failed()) << out.failures[0];
  ASSERT_EQ(n.state.parse->ranks.size(), 2u);
  EXPECT_EQ(n.state.parse->ranks[0].parser, metrics::ParserPath::kTracelensExcel);
  EXPECT_EQ(n.state.parse->ranks[1].parser, metrics::ParserPath::kGpuTimeline);
  EXPECT_NEAR(n.state.parse->ranks[1].compute_ratio, 84.5680634765625 / 834.097537109375, 1e-6);  // rank 1's own
  bool said = false;
  for (const auto& note : out.log)
    said |= note.starts_with("rank 1: the TraceLens report says 835.602 ms in all, its trace 834.098 ms: the report is not");
  EXPECT_TRUE(said);
}

}  // namespace
}  // namespace aorta::job
