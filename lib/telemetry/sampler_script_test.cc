// The sampler's script: its text (every value quoted, the interval and the limits as
// planned, the cap) and its records, run with real bash and the GPU tool doubles
// (tests/doubles/gpu_tools) beside a stand-in training's process group.
#include "telemetry/sampler_script.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>

#include <gtest/gtest.h>

#include "common/shell_quote.h"
#include "test_paths.h"  // AORTA_SOURCE_DIR
#include "tests/temp_dir.h"

namespace aorta::telemetry {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

size_t count(const std::string& text, const std::string& pattern) {
  const std::regex re(pattern, std::regex::multiline);
  return std::distance(std::sregex_iterator(text.begin(), text.end(), re), std::sregex_iterator());
}

// A work folder, a stand-in training of `training_seconds` in its own process group
// (its pid file as the phase writes it; none when 0), and the sampler run to its end.
struct SamplerRun {
  aorta::testing::TempDir dir;
  SamplerPlan plan;
  explicit SamplerRun(int training_seconds, int deadline = 30) {
    plan = sampler_plan("node1", dir.path().string(), (dir.path() / "benchmark.pid").string(), 1, deadline);
    plan.deadline_seconds = deadline;
    plan.tick_limit_seconds = 1;
    plan.edge_limit_seconds = 1;
    if (training_seconds > 0)
      std::system(("setsid sleep " + std::to_string(training_seconds) + " < /dev/null > /dev/null 2>&1 & echo $! > " +
                   shell_quote((dir.path() / "benchmark.pid").string()))
                      .c_str());
  }
  // The records, the sampler run with PATH and the doubles' scenario as given.
  std::string run(const std::string& path, const std::string& scenario = "", const std::string& home = "") {
    const fs::path script = dir.write("telemetry.sh", sampler_script(plan));
    const std::string env = "env PATH=" + shell_quote(path) + (home.empty() ? "" : " HOME=" + shell_quote(home)) +
                            " AORTA_GPU_DOUBLE=" + shell_quote(scenario) +
                            " AORTA_GPU_DOUBLE_GPUS=2 AORTA_GPU_DOUBLE_STATE=" + shell_quote((dir.path() / "dbl").string());
    EXPECT_EQ(std::system((env + " bash " + shell_quote(script.string())).c_str()), 0);
    return read(dir.path() / kSampleFile);
  }
};

const std::string kDoubles = std::string(AORTA_SOURCE_DIR) + "/tests/doubles/gpu_tools/nvidia-smi-only";
const std::string kAmdSmi = std::string(AORTA_SOURCE_DIR) + "/tests/doubles/gpu_tools/amd-smi-only";
const std::string kSystemPath = "/usr/local/bin:/usr/bin:/bin";

TEST(SamplerScript, EveryValueIsQuotedAndTheScriptParses) {
  aorta::testing::TempDir dir;
  SamplerPlan plan = sampler_plan("node'1 $(touch x)", "/data/a b/$HOME/`id`", "/data/a b/benchmark.pid", 1, 60);
  const std::string text = sampler_script(plan);
  EXPECT_NE(text.find("host=" + shell_quote("node'1 $(touch x)") + "\n"), std::string::npos);
  EXPECT_NE(text.find("log=" + shell_quote("/data/a b/$HOME/`id`/telemetry.log") + "\n"), std::string::npos);
  EXPECT_NE(text.find("pid_file=" + shell_quote("/data/a b/benchmark.pid") + "\n"), std::string::npos);
  EXPECT_EQ(text.find("$(touch x)\n"), std::string::npos);
  const fs::path script = dir.write("telemetry.sh", text);
  EXPECT_EQ(std::system(("bash -n " + shell_quote(script.string())).c_str()), 0);
}

TEST(SamplerScript, IntervalLimitsAndDeadlineFollowTheConfig) {
  const SamplerPlan plan = sampler_plan("n", "/w", "/w/benchmark.pid", 5, 600);
  EXPECT_EQ(plan.interval_seconds, 5);
  EXPECT_EQ(plan.tick_limit_seconds, 13);  // below three intervals: a hung tool costs a tick or two
  EXPECT_EQ(plan.edge_limit_seconds, 26);
  EXPECT_EQ(plan.deadline_seconds, 600 + kDeadlineMarginSeconds);
  const std::string text = sampler_script(plan);
  EXPECT_NE(text.find("interval=5 deadline=720 tick_limit=13 edge_limit=26\n"), std::string::npos);
  // A number the suite did not check stops the script before it reaches $(( )).
  EXPECT_NE(text.find("*[!0-9]*) echo \"sampler: not a number"), std::string::npos);
}

TEST(SamplerScript, CapHoldsEightGpusOfAmdSmiJsonEverySecondForFourHours) {
  const int64_t per_tick = 8 * 4096;  // amd-smi metric --json, about 4 KiB a GPU
  EXPECT_GE(kCapBytes - kEndReserveBytes, per_tick * 4 * 3600);
  EXPECT_NE(sampler_script(sampler_plan("n", "/w", "/w/p", 1, 60)).find("cap=536870912 "), std::string::npos);
}

TEST(SamplerScript, HeaderEdgesTicksAndEndWhenTheTrainingEnds) {
  SamplerRun s(3);
  const std::string log = s.run(kDoubles + ":" + kSystemPath);
  EXPECT_EQ(log.substr(0, log.find('\n')), "#aorta-telemetry v1 host=node1 tool=nvidia-smi interval=1");
  EXPECT_EQ(count(log, "^#sample [0-9.]+ edge$"), 2u) << log;
  EXPECT_GE(count(log, "^#sample [0-9.]+ tick$"), 2u) << log;
  EXPECT_EQ(count(log, "^index, timestamp, temperature.gpu"), count(log, "^#sample [0-9.]+ tick$"));
  EXPECT_TRUE(std::regex_search(log, std::regex("#sample [0-9.]+ edge\nindex, ecc[^\n]*\n0, [^\n]*\n1, [^\n]*\n#end "
                                                "[0-9.]+ training ended\n$")))
      << log;
  EXPECT_EQ(header_tool(log.substr(0, log.find('\n'))), "nvidia-smi");
}

TEST(SamplerScript, TheFirstToolOnPathInGpuToolsOrderIsTaken) {
  SamplerRun s(1);
  const std::string log = s.run(kDoubles + ":" + kAmdSmi + ":" + kSystemPath);
  EXPECT_EQ(header_tool(log.substr(0, log.find('\n'))), "amd-smi") << log;
  EXPECT_GE(count(log, "^#sample [0-9.]+ tick\n\\[\n"), 1u) << log;  // amd-smi's JSON list
}

// Over SSH a plain command has sshd's PATH, not the login shell's where the training
// finds its commands (and ROCm's profile.d puts /opt/rocm/bin): the sampler looks there too.
TEST(SamplerScript, AToolOnTheLoginShellsPathIsFound) {
  SamplerRun s(1);
  const fs::path home = s.dir.path() / "home";
  s.dir.write("home/.bash_profile", "export PATH=" + kDoubles + ":$PATH\n");
  const std::string log = s.run(kSystemPath, "", home.string());
  EXPECT_EQ(header_tool(log.substr(0, log.find('\n'))), "nvidia-smi") << log;
}

TEST(SamplerScript, AHungToolIsAnErrorAndTheSamplerGoesOn) {
  SamplerRun s(3);
  const std::string log = s.run(kDoubles + ":" + kSystemPath, "hang");
  EXPECT_GE(count(log, "^#error [0-9.]+ edge: nvidia-smi did not answer within 1s$"), 2u) << log;
  EXPECT_GE(count(log, "^#error [0-9.]+ tick: nvidia-smi did not answer within 1s$"), 1u) << log;
  EXPECT_EQ(count(log, "^#end [0-9.]+ training ended$"), 1u) << log;
}

TEST(SamplerScript, GarbageCannotForgeARecord) {
  SamplerRun s(2);
  const std::string log = s.run(kDoubles + ":" + kSystemPath, "garbage");
  EXPECT_EQ(count(log, "^#sample 0 tick"), 0u) << log;
  EXPECT_GE(count(log, "^ #sample 0 tick$"), 1u) << log;
  EXPECT_EQ(count(log, "^#forged"), 0u);
}

TEST(SamplerScript, AFailingToolIsNamedWithWhatItSaid) {
  SamplerRun s(2);
  const std::string log = s.run(kDoubles + ":" + kSystemPath, "fail");
  EXPECT_GE(count(log, "^#error [0-9.]+ edge: nvidia-smi exited 1: nvidia-smi: failed to initialise the GPU driver"),
            2u)
      << log;
}

TEST(SamplerScript, TheCapEndsTheTicksWithTruncated) {
  SamplerRun s(4);
  s.plan.cap_bytes = 3000;  // the first edge and a tick or two; the reserve is half of it
  const std::string log = s.run(kDoubles + ":" + kSystemPath);
  EXPECT_EQ(count(log, "^#truncated [0-9]+$"), 1u) << log;
  EXPECT_EQ(count(log, "#truncated[^]*#sample [0-9.]+ tick"), 0u) << log;  // no tick after it
  EXPECT_EQ(count(log, "^#end [0-9.]+ training ended$"), 1u) << log;
  EXPECT_LE(log.size(), 3000u);
}

TEST(SamplerScript, NoToolSaysNoneAndEndsAtOnce) {
  SamplerRun s(30);
  const std::string log = s.run(kSystemPath);
  EXPECT_TRUE(std::regex_match(log, std::regex("#aorta-telemetry v1 host=node1 tool=none interval=1\n#end [0-9.]+ no tool\n")))
      << log;
  EXPECT_EQ(no_tool_line({"node1"}),
            "node node1: no GPU telemetry tool (amd-smi, rocm-smi, nvidia-smi) on PATH; the run goes on without it");
  // A fleet without tools is one line, not one a node (the console stays short at 64 nodes).
  std::vector<std::string> fleet;
  for (int i = 1; i <= 64; ++i) fleet.push_back("n" + std::to_string(i));
  EXPECT_EQ(no_tool_line(fleet), "64 nodes (n1, n2, n3, n4, n5, n6, n7, n8 and 56 more): no GPU telemetry tool (amd-smi, "
                                 "rocm-smi, nvidia-smi) on PATH; the run goes on without it");
}

TEST(SamplerScript, TheStopFileAndTheDeadlineEndIt) {
  SamplerRun stopped(30);
  stopped.dir.write(kStopFile, "");
  EXPECT_EQ(count(stopped.run(kDoubles + ":" + kSystemPath), "^#end [0-9.]+ stopped$"), 1u);
  SamplerRun late(0, 2);  // no training pid to watch: only the deadline ends it
  EXPECT_EQ(count(late.run(kDoubles + ":" + kSystemPath), "^#end [0-9.]+ deadline$"), 1u);
}

}  // namespace
}  // namespace aorta::telemetry
