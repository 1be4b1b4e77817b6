// The three tools' formats, read from fixture files written to the real shapes
// (tests/data/telemetry/README.md names the sources), and hostile input: whatever can
// be read is, the rest is named with its file and line, nothing crashes.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "telemetry/amd_smi_format.h"
#include "telemetry/nvidia_smi_format.h"
#include "telemetry/rocm_smi_format.h"
#include "telemetry/sample_file.h"
#include "telemetry/value_text.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::telemetry {
namespace {

SampleFile fixture(const std::string& name) {
  std::ifstream in(std::string(AORTA_TEST_DATA_DIR) + "/telemetry/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return read_sample_file(text.str());
}

TEST(TelemetryValues, NumbersAsTheToolsPrintThem) {
  EXPECT_EQ(leading_number("(1980Mhz)"), 1980);
  EXPECT_EQ(leading_number("1 (16.0GT/s x16)"), 1);
  EXPECT_EQ(leading_number("-3.5"), -3.5);
  EXPECT_EQ(leading_number("N/A"), std::nullopt);
  EXPECT_EQ(leading_number("1e400"), std::nullopt);  // not finite: no reading
  EXPECT_EQ(json_number(nlohmann::json::parse(R"({"value": 35, "unit": "C"})")), 35);
  EXPECT_EQ(json_number(nlohmann::json("N/A")), std::nullopt);
  EXPECT_EQ(json_number(nlohmann::json(nullptr)), std::nullopt);
}

TEST(TelemetryValues, JsonDocumentsOneAfterAnother) {
  const auto docs = json_documents("[{\"a\": \"]\"}]\n[\n 2\n]\n{\"b\": [");
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_EQ(docs[0], "[{\"a\": \"]\"}]");
  EXPECT_EQ(docs[1], "[\n 2\n]");
  EXPECT_EQ(docs[2], "{\"b\": [");  // cut short: handed on for the parser to name
}

TEST(SampleFile, HeaderAndRecords) {
  const SampleFile f = fixture("run/node-0.log");
  EXPECT_EQ(f.host, "node1");
  EXPECT_EQ(f.tool, "amd-smi");
  EXPECT_EQ(f.interval, 1);
  ASSERT_EQ(f.records.size(), 7u);
  EXPECT_TRUE(f.records.front().edge);
  EXPECT_FALSE(f.records[1].edge);
  EXPECT_EQ(f.records[1].time, 1764950401);
  EXPECT_TRUE(f.errors.empty());
  EXPECT_FALSE(f.truncated);
}

// GPU 1 is thermally throttled in ticks 3 and 4 at 1400 MHz; its ECC count rises.
TEST(AmdSmiFormat, TickAndEdgeRecords) {
  const SampleFile f = fixture("run/node-0.log");
  const Readings tick = parse_amd_smi(f.records[3].body);
  ASSERT_TRUE(tick.errors.empty()) << tick.errors.front();
  const GpuReading& g = tick.gpus.at(1);
  EXPECT_EQ(g.temperature_c, (std::map<std::string, double>{{"hotspot", 97}, {"memory", 60}}));  // edge: "N/A"
  EXPECT_EQ(g.clock_mhz, 1400);
  EXPECT_EQ(g.memory_clock_mhz, 1300);
  EXPECT_EQ(g.power_w, 680);
  EXPECT_EQ(g.utilisation_pct, 98);
  EXPECT_TRUE(g.throttle.at("socket_thermal"));
  EXPECT_FALSE(g.throttle.at("ppt"));
  const Readings end = parse_amd_smi(f.records.back().body);
  const GpuReading& e = end.gpus.at(1);
  EXPECT_EQ(e.ecc, (ErrorCounts{14, 1}));
  EXPECT_EQ(e.ecc_blocks.at("UMC"), (ErrorCounts{11, 1}));
  EXPECT_EQ(e.width_current, 16);
  EXPECT_EQ(e.width_max, 16);  // from static --bus, the second list
  EXPECT_EQ(e.speed_max, 32);
  EXPECT_EQ(e.replays, 0);
}

// GPU 1 trained at x8 of x16; rocm-smi prints no throttle reasons.
TEST(RocmSmiFormat, TickAndEdgeRecords) {
  const SampleFile f = fixture("run/node-1.log");
  const Readings tick = parse_rocm_smi(f.records[1].body);
  const GpuReading& g = tick.gpus.at(0);
  EXPECT_EQ(g.temperature_c, (std::map<std::string, double>{{"edge", 45}, {"hotspot", 62}, {"memory", 55}}));
  EXPECT_EQ(g.power_w, 550);
  EXPECT_EQ(g.clock_mhz, 2100);
  EXPECT_EQ(g.memory_clock_mhz, 1300);
  EXPECT_EQ(g.utilisation_pct, 99);
  EXPECT_TRUE(g.throttle.empty());
  const Readings end = parse_rocm_smi(f.records.back().body);
  EXPECT_EQ(end.gpus.at(1).width_current, 8);
  EXPECT_EQ(end.gpus.at(1).width_max, 16);
  EXPECT_EQ(end.gpus.at(1).replays, 9);
  EXPECT_EQ(end.gpus.at(0).speed_current, 2.5);  // idle at the edge
  EXPECT_EQ(end.gpus.at(0).speed_max, 32);
}

TEST(NvidiaSmiFormat, TickAndEdgeRecords) {
  const SampleFile f = fixture("run/node-2.log");
  const Readings tick = parse_nvidia_smi(f.records[3].body);
  ASSERT_TRUE(tick.errors.empty()) << tick.errors.front();
  const GpuReading& g = tick.gpus.at(1);
  EXPECT_EQ(g.temperature_c, (std::map<std::string, double>{{"gpu", 86}}));  // memory: [N/A]
  EXPECT_EQ(g.power_w, 690.5);
  EXPECT_EQ(g.clock_mhz, 1410);
  EXPECT_EQ(g.memory_clock_mhz, 3201);
  EXPECT_TRUE(g.throttle.at("hw_thermal_slowdown"));  // 0x44
  EXPECT_TRUE(g.throttle.at("sw_power_cap"));
  EXPECT_FALSE(g.throttle.at("gpu_idle"));
  EXPECT_EQ(g.throttle.size(), 9u);
  const Readings edge = parse_nvidia_smi(f.records.front().body);
  EXPECT_EQ(edge.gpus.at(1).ecc, (ErrorCounts{2, 0}));
  EXPECT_EQ(edge.gpus.at(1).speed_current, 1);
  EXPECT_EQ(edge.gpus.at(1).speed_max, 5);
  EXPECT_EQ(edge.gpus.at(1).width_max, 16);
}

TEST(ToolFormats, GarbageIsNamedNeverThrown) {
  for (const char* body : {"", "Segmentation fault", "[{\"gpu\": 0, \"clock\": ", "{\"card0\": 7}", "[1, 2]",
                           "index, clocks.sm\n0, 1, 2\nx, 5\n", "\xff\xfe{[", "[{\"gpu\": 1e999}]"}) {
    EXPECT_NO_THROW({
      EXPECT_FALSE(parse_amd_smi(body).errors.empty()) << body;
      EXPECT_TRUE(parse_rocm_smi(body).gpus.empty() || !parse_rocm_smi(body).errors.empty()) << body;
      EXPECT_TRUE(parse_nvidia_smi(body).gpus.empty()) << body;
    });
  }
}

TEST(ToolFormats, NotReportedIsAbsentNotZero) {
  const Readings r = parse_nvidia_smi(
      "index, temperature.gpu, power.draw [W], clocks.current.sm [MHz], clocks_event_reasons.active\n"
      "0, [N/A], [Not Supported], 1980, [N/A]\n");
  const GpuReading& g = r.gpus.at(0);
  EXPECT_TRUE(g.temperature_c.empty());
  EXPECT_EQ(g.power_w, std::nullopt);
  EXPECT_EQ(g.clock_mhz, 1980);
  EXPECT_TRUE(g.throttle.empty());
}

}  // namespace
}  // namespace aorta::telemetry
