// The per-GPU summary: figures by hand on a tiny file, the fixtures against
// tools/independent_telemetry.py, hostile files, the node order and the JSON schema.
#include "telemetry/summary.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <tuple>

#include <gtest/gtest.h>

#include "result_json/metrics_json.h"
#include "result_json/telemetry_json.h"
#include "tests/report_schema.h"
#include "tests/temp_dir.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::telemetry {
namespace {

namespace fs = std::filesystem;
const fs::path kData = fs::path(AORTA_TEST_DATA_DIR) / "telemetry";

constexpr const char* kTick = "#sample {} tick\nindex, power.draw [W], clocks.current.sm [MHz], clocks_event_reasons.active\n";

// Two GPUs, three ticks (GPU 1 misses the second), ECC and link at the edges.
std::string tiny_file() {
  const std::string edge = "index, ecc.errors.corrected.volatile.total, ecc.errors.uncorrected.volatile.total, "
                           "pcie.link.width.current, pcie.link.width.max\n";
  std::string t = "#aorta-telemetry v1 host=n1 tool=nvidia-smi interval=1\n";
  t += "#sample 100 edge\n" + edge + "0, 5, 0, 16, 16\n1, 0, 0, 8, 16\n";
  auto tick = [](int time, const std::string& rows) {
    std::string head = kTick;
    return head.replace(head.find("{}"), 2, std::to_string(time)) + rows;
  };
  t += tick(101, "0, 100, 2000, 0x0\n1, 200, 1000, 0x40\n");
  t += tick(102, "0, 300, 1800, 0x0\n");
  t += tick(104, "0, 200, 1900, 0x4\n1, 400, 2000, 0x0\n");
  t += "#sample 105 edge\n" + edge + "0, 7, 1, 16, 16\n1, 0, 0, 16, 16\n#end 105 training ended\n";
  return t;
}

TEST(TelemetrySummary, FiguresByHandOnATinyFile) {
  const RunTelemetry run = summarise(std::vector<NamedSamples>{{"node-0.log", tiny_file()}});
  ASSERT_EQ(run.nodes.size(), 1u);
  EXPECT_EQ(run.nodes[0], (NodeTelemetry{"n1", "nvidia-smi", {}, false}));
  // Every tick's clock: 2000 1000 1800 1900 2000 -> median 1900; 90 % of it is 1710.
  EXPECT_EQ(run.fleet_clock_median_mhz, 1900);
  ASSERT_EQ(run.gpus.size(), 2u);
  const GpuTelemetry& g0 = run.gpus[0];
  EXPECT_EQ(g0.host, "n1");
  EXPECT_EQ(g0.samples, 3u);
  EXPECT_EQ(g0.window_seconds, 3);
  EXPECT_EQ(g0.power_w, (MeanMax{200, 300}));
  EXPECT_EQ(g0.clock_median_mhz, 1900);
  EXPECT_EQ(g0.share_under_fleet_clock, 0);
  EXPECT_DOUBLE_EQ(g0.throttle_share.at("sw_power_cap"), 1.0 / 3);
  EXPECT_EQ(g0.ecc, (ErrorCounts{2, 1}));
  ASSERT_TRUE(g0.link);
  EXPECT_FALSE(g0.link->downgraded);
  EXPECT_EQ(g0.link->replay_delta, std::nullopt);  // nvidia-smi's query has no replay counter
  const GpuTelemetry& g1 = run.gpus[1];
  EXPECT_EQ(g1.samples, 2u);  // absent from the second tick
  EXPECT_EQ(g1.window_seconds, 3);
  EXPECT_EQ(g1.clock_median_mhz, 1500);
  EXPECT_EQ(g1.share_under_fleet_clock, 0.5);
  EXPECT_EQ(g1.throttle_share.at("hw_thermal_slowdown"), 0.5);
  EXPECT_EQ(g1.ecc, (ErrorCounts{0, 0}));
  EXPECT_TRUE(g1.link->downgraded);  // x8 of x16 at the start
  EXPECT_EQ(g1.link->width_current, 16);  // the end's
}

// Garbage, truncated JSON, "N/A", huge numbers, a GPU in some ticks only, a hung
// command and the size cap; a node without a tool.
TEST(TelemetrySummary, HostileFilesAreReadAsFarAsTheyGo) {
  const RunTelemetry run = summarise(std::vector<fs::path>{kData / "hostile/node-0.log", kData / "hostile/node-1.log"});
  ASSERT_EQ(run.nodes.size(), 2u);
  const NodeTelemetry& bad = run.nodes[0];
  EXPECT_EQ(bad.host, "node4");
  EXPECT_TRUE(bad.truncated);
  auto named = [&](const std::string& text) {
    for (const auto& e : bad.errors)
      if (e.find(text) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(named("node-0.log line 425: amd-smi: JSON that does not parse")) << ::testing::PrintToString(bad.errors);
  EXPECT_TRUE(named("node-0.log line 634: amd-smi: no JSON"));
  EXPECT_TRUE(named("error 1764950405 amd-smi metric timed out after 10 s"));
  EXPECT_TRUE(named("not a #sample line"));
  EXPECT_EQ(run.nodes[1], (NodeTelemetry{"node5", "none", {}, false}));
  ASSERT_EQ(run.gpus.size(), 2u);
  // 1e400 is past any double: its document is named and lost, the other records read.
  EXPECT_TRUE(named("node-0.log line 856: amd-smi: JSON that does not parse"));
  EXPECT_EQ(run.gpus[0].samples, 3u);
  EXPECT_EQ(run.gpus[0].clock_median_mhz, 2100);
  EXPECT_EQ(run.gpus[1].samples, 3u);             // "N/A" everywhere in one tick
  EXPECT_EQ(run.gpus[1].power_w, (MeanMax{650, 650}));
}

TEST(TelemetrySummary, ErrorsPerNodeAreBounded) {
  std::string text = "#aorta-telemetry v1 host=n tool=amd-smi interval=1\n";
  for (int i = 0; i < 100; ++i) text += "#sample 1 tick\ngarbage\n";
  const RunTelemetry run = summarise(std::vector<NamedSamples>{{"node-0.log", text}});
  ASSERT_EQ(run.nodes[0].errors.size(), kMaxNodeErrors + 1);
  EXPECT_EQ(run.nodes[0].errors.back(), "80 more error(s)");
}

TEST(TelemetrySummary, FolderInNodeOrderAndAbsentWithoutFiles) {
  aorta::testing::TempDir dir;
  EXPECT_EQ(read_telemetry_folder(dir.path() / "telemetry"), std::nullopt);
  fs::create_directories(dir.path() / "telemetry");
  EXPECT_EQ(read_telemetry_folder(dir.path() / "telemetry"), std::nullopt);
  for (int i : {10, 2})
    dir.write("telemetry/node-" + std::to_string(i) + ".log",
              "#aorta-telemetry v1 host=h" + std::to_string(i) + " tool=none interval=1\n");
  const auto run = read_telemetry_beside(dir.path() / "torch_traces");
  ASSERT_TRUE(run);
  ASSERT_EQ(run->nodes.size(), 2u);
  EXPECT_EQ(run->nodes[0].host, "h2");
  EXPECT_EQ(run->nodes[1].host, "h10");
  EXPECT_TRUE(run->gpus.empty());
}

std::string command_output(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::string out;
  char buffer[4096];
  for (size_t n; pipe && (n = fread(buffer, 1, sizeof buffer, pipe.get())) > 0;) out.append(buffer, n);
  return out;
}

// Every figure equal to the independent checker's, within rounding.
void expect_same(const nlohmann::json& ours, const nlohmann::json& theirs, const std::string& path) {
  if (ours.is_number() && theirs.is_number()) {
    const double a = ours.get<double>(), b = theirs.get<double>();
    EXPECT_LE(std::abs(a - b), 1e-9 * std::max(1.0, std::abs(b))) << path;
  } else if (ours.is_object() && theirs.is_object()) {
    EXPECT_EQ(ours.size(), theirs.size()) << path;
    for (const auto& [key, value] : theirs.items())
      ours.contains(key) ? expect_same(ours[key], value, path + "." + key) : ADD_FAILURE() << path << " lacks " << key;
  } else if (ours.is_array() && theirs.is_array() && ours.size() == theirs.size()) {
    for (size_t i = 0; i < ours.size(); ++i) expect_same(ours[i], theirs[i], path + "[" + std::to_string(i) + "]");
  } else {
    EXPECT_EQ(ours, theirs) << path;
  }
}

// The fixtures, and a real nvidia-smi's samples of an H100 (idle, then a GEMM at its power cap).
TEST(TelemetrySummary, MatchesTheIndependentChecker) {
  for (const auto& [folder, nodes, gpus] : {std::tuple{"run", 3, 6u}, std::tuple{"real", 1, 1u}}) {
    std::vector<fs::path> files;
    std::string command = "python3 " + std::string(AORTA_SOURCE_DIR) + "/tools/independent_telemetry.py";
    for (int i = 0; i < nodes; ++i) {
      files.push_back(kData / folder / ("node-" + std::to_string(i) + ".log"));
      command += " " + files.back().string();
    }
    const nlohmann::json theirs = nlohmann::json::parse(command_output(command));
    const nlohmann::json ours =
        nlohmann::json::parse(result_json::json_text(result_json::telemetry_json(summarise(files))));
    ASSERT_EQ(ours["gpus"].size(), gpus) << folder;
    expect_same(ours["gpus"], theirs["gpus"], std::string(folder) + ".gpus");
    expect_same(ours["fleet_clock_median_mhz"], theirs["fleet_clock_median_mhz"], "fleet");
    for (int i = 0; i < nodes; ++i) EXPECT_EQ(ours["nodes"][i]["tool"], theirs["nodes"][i]["tool"]);
  }
}

TEST(TelemetrySummary, JsonPassesTheReportSchema) {
  aorta::testing::TempDir dir;
  RunTelemetry run = summarise(std::vector<fs::path>{kData / "run/node-0.log", kData / "run/node-1.log",
                                                     kData / "run/node-2.log", kData / "hostile/node-0.log",
                                                     kData / "hostile/node-1.log"});
  const auto file = dir.write("t.json", result_json::json_text(result_json::telemetry_json(run)));
  EXPECT_TRUE(aorta::testing::passes_report_schema(file, "telemetry"));
}

}  // namespace
}  // namespace aorta::telemetry
