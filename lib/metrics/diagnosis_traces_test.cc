// The diagnosis on the shipped real H200 traces, every number against
// tools/independent_diagnosis.py; and on copies perturbed by tools/perturb_trace.py,
// where exactly the injected rank and cause must be named, and nothing in an
// unperturbed set.
#include <cstdio>
#include <map>

#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "metrics/diagnosis_gates.h"
#include "metrics/run_metrics.h"
#include "metrics/trace_set.h"
#include "tests/temp_dir.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::metrics {
namespace {

namespace fs = std::filesystem;
const fs::path kData = AORTA_TEST_DATA_DIR;
const fs::path kTools = fs::path(AORTA_SOURCE_DIR) / "tools";

std::string output_of(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[65536];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  EXPECT_EQ(::pclose(pipe), 0) << command;
  return out;
}

nlohmann::json independent(const std::vector<fs::path>& files) {
  std::string command = "/usr/bin/python3 " + (kTools / "independent_diagnosis.py").string();
  for (const auto& f : files) command += " " + f.string();
  return nlohmann::json::parse(output_of(command));
}

RankMetrics analyzed(const fs::path& file) {
  std::vector<std::string> warnings;
  auto m = analyze_trace_file(file, AnalyzeOptions{}, warnings);
  EXPECT_TRUE(m.ok()) << file;
  return m.ok() ? *m : RankMetrics{};
}

void expect_classes(const std::vector<KernelClassTime>& classes, const nlohmann::json& py, const std::string& where) {
  ASSERT_EQ(classes.size(), py.size()) << where;
  for (size_t i = 0; i < classes.size(); ++i) {
    const auto& c = py[i];
    EXPECT_EQ(classes[i].name, c["name"].get<std::string>()) << where;
    EXPECT_EQ(classes[i].kernels, c["kernels"].get<uint64_t>()) << where << classes[i].name;
    EXPECT_EQ(classes[i].time_us, c["time_us"].get<double>()) << where << classes[i].name;
    EXPECT_EQ(classes[i].share, c["share"].get<double>()) << where << classes[i].name;
  }
}

void expect_idle(const IdleBreakdown& idle, const nlohmann::json& py, const std::string& where) {
  EXPECT_EQ(idle.host_wait_us, py["host_wait_us"].get<double>()) << where;
  EXPECT_EQ(idle.kernel_wait_us, py["kernel_wait_us"].get<double>()) << where;
  EXPECT_EQ(idle.other_us, py["other_us"].get<double>()) << where;
  EXPECT_EQ(idle.gaps, py["gaps"].get<uint64_t>()) << where;
  EXPECT_EQ(idle.host_wait_gaps, py["host_wait_gaps"].get<uint64_t>()) << where;
}

void expect_equal(const RankMetrics& m, const nlohmann::json& py) {
  ASSERT_TRUE(m.diagnosis.has_value());
  const RankDiagnosis& d = *m.diagnosis;
  EXPECT_EQ(d.window_us, py["window_us"].get<double>());
  EXPECT_EQ(*m.idle_time_us, py["idle_time_us"].get<double>());
  ASSERT_TRUE(m.gpu.has_value());
  EXPECT_EQ(*m.gpu, py["gpu"].get<int>());
  expect_classes(d.classes, py["classes"], "window ");
  expect_idle(d.idle, py["idle"], "window");
  // The three parts are the timeline's idle time, up to the order of the additions.
  EXPECT_NEAR(d.idle.host_wait_us + d.idle.kernel_wait_us + d.idle.other_us, *m.idle_time_us, 1e-6 * *m.idle_time_us);
  // Every step with kernels, as the checker finds them.
  std::map<int64_t, const StepMetrics*> steps;
  for (const auto& st : m.steps)
    if (!st.classes.empty()) steps[st.step] = &st;
  ASSERT_EQ(steps.size(), py["steps"].size());
  ASSERT_FALSE(steps.empty());
  for (const auto& st : py["steps"]) {
    const int64_t n = st["step"].get<int64_t>();
    ASSERT_TRUE(steps.count(n)) << n;
    expect_classes(steps[n]->classes, st["classes"], "step " + std::to_string(n) + " ");
    expect_idle(*steps[n]->idle, st["idle"], "step " + std::to_string(n));
  }
  ASSERT_EQ(d.collectives.size(), py["collectives"].size());
  for (size_t i = 0; i < d.collectives.size(); ++i) {
    const auto& c = py["collectives"][i];
    const CollectiveBandwidth& b = d.collectives[i];
    EXPECT_EQ(b.collective, c["collective"].get<std::string>());
    EXPECT_EQ(b.dtype, c["dtype"].get<std::string>());
    EXPECT_EQ(b.group_size, c["group_size"].get<int64_t>());
    EXPECT_EQ(b.bytes, c["bytes"].get<uint64_t>());
    EXPECT_EQ(b.count, c["count"].get<uint64_t>());
    EXPECT_EQ(b.time_us, c["time_us"].get<double>());
    EXPECT_EQ(b.algbw_gbps, c["algbw_gbps"].get<double>());
    EXPECT_EQ(*b.busbw_gbps, c["busbw_gbps"].get<double>());
  }
  EXPECT_TRUE(d.missing.empty());
  // Every record_param_comms but the waits has its kernel: the link the kernels' args carry.
  std::map<std::string, uint64_t> kernels;
  for (const auto& b : d.collectives) kernels[b.collective] += b.count;
  for (const auto& [name, count] : py["record_param_comms"].items()) {
    if (name != "wait") {
      EXPECT_EQ(kernels[name], count.get<uint64_t>()) << name;
    }
  }
}

TEST(DiagnosisRealTraces, EveryNumberEqualsTheIndependentChecker) {
  const std::vector<fs::path> files{kData / "h200-aorta-overlap_rank0.pt.trace.json.gz",
                                    kData / "h200-aorta-overlap_rank1.pt.trace.json.gz"};
  const nlohmann::json py = independent(files);
  for (size_t r = 0; r < files.size(); ++r) expect_equal(analyzed(files[r]), py["ranks"][r]);
  EXPECT_TRUE(py["findings"].empty());  // two ranks: no median to stand out from
}

// The gates' figures on the real traces. Numbers from tools/independent_diagnosis.py on
// both traces (per-rank "classes" and "collectives"), aggregated by hand: GEMM mean
// kernel 33838.5908203125 / 628 (rank 0) and 24814.4267578125 / 628 (rank 1); the
// lowest busbw at each type's largest size: allreduce 4194304 B rank 0, _allgather_base
// 247840776 B rank 1, _reduce_scatter_base 247840776 B rank 0.
TEST(DiagnosisRealTraces, GateFiguresEqualTheIndependentChecker) {
  const RankMetrics r0 = analyzed(kData / "h200-aorta-overlap_rank0.pt.trace.json.gz");
  const RankMetrics r1 = analyzed(kData / "h200-aorta-overlap_rank1.pt.trace.json.gz");
  auto run = aggregate({r0, r1});
  ASSERT_TRUE(run.ok());
  EXPECT_DOUBLE_EQ(*min_busbw_gbps(run->per_rank, "allreduce"), 2.469695882892014);
  EXPECT_DOUBLE_EQ(*min_busbw_gbps(run->per_rank, "allgather"), 34.356248462531575);
  EXPECT_DOUBLE_EQ(*min_busbw_gbps(run->per_rank, "reduce_scatter"), 49.767336327412735);
  // Two ranks: no median to be slower than, so a configured slowdown gate fails, saying why.
  const auto checks = check_thresholds(*run, {{"max_rank_compute_slowdown_ratio", 1.3}});
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_FALSE(checks[0].passed);
  EXPECT_EQ(checks[0].message,
            "Rank compute slowdown not available: fewer than 3 ranks have compute kernels on a GPU timeline");
  // Rank 1 counted twice makes three: median rank 1's mean, slowest rank 0's.
  EXPECT_DOUBLE_EQ(*max_rank_compute_slowdown_ratio({r0, r1, r1}), (33838.5908203125 / 628) / (24814.4267578125 / 628));
}

// Six ranks made from rank 1: five scaled as a whole by 1.00, 1.01, 0.99, 1.02, 0.98 (a
// healthy cluster's spread), and rank 5 perturbed as `kind` and `factor` say.
class DiagnosisPerturbed : public ::testing::Test {
 protected:
  static constexpr double kHostGapUs = 50;  // before each launch that already made its GPU wait
  static void SetUpTestSuite() { dir_ = new aorta::testing::TempDir(); }
  static void TearDownTestSuite() { delete dir_; }
  // The set's six traces, made on first use: ctest runs each test in a process of its
  // own, and each needs the five spread ranks and its own rank 5 only.
  static fs::path set_dir(const std::string& set) {
    static const std::map<std::string, std::pair<const char*, double>> kRank5{{"none", {"all", 1.0}},
                                                                             {"gemm", {"gemm", 1.15}},
                                                                             {"collective", {"collective", 1.3}},
                                                                             {"hostgap", {"hostgap", kHostGapUs}}};
    const fs::path base = dir_->path() / "base", out = dir_->path() / set;
    if (fs::exists(out / "rank5.json")) return out;
    std::string script;
    auto perturb = [&](const fs::path& to, const std::string& kind, double factor, int rank) {
      script += fmt::format("/usr/bin/python3 {} {} {} --kind {} --factor {} --rank {} --world-size 6 &\n",
                            (kTools / "perturb_trace.py").string(),
                            (kData / "h200-aorta-overlap_rank1.pt.trace.json.gz").string(), to.string(), kind, factor,
                            rank);
    };
    const std::vector<double> spread{1.00, 1.01, 0.99, 1.02, 0.98};
    const bool have_base = fs::exists(base / "rank4.json");
    fs::create_directories(base);
    fs::create_directories(out);
    if (!have_base)
      for (int r = 0; r < 5; ++r) perturb(base / fmt::format("rank{}.json", r), "all", spread[r], r);
    perturb(out / "rank5.json", kRank5.at(set).first, kRank5.at(set).second, 5);
    output_of("set -e\n" + script + "wait\n");
    for (int r = 0; r < 5; ++r) fs::create_hard_link(base / fmt::format("rank{}.json", r), out / fmt::format("rank{}.json", r));
    return out;
  }
  static RunMetrics run_of(const std::string& set) {
    TraceSet traces = analyze_traces(set_dir(set), AnalyzeOptions{});
    EXPECT_EQ(traces.status, ParseStatus::kSuccess) << (traces.errors.empty() ? "" : traces.errors.front());
    auto run = aggregate(traces.ranks);
    EXPECT_TRUE(run.ok());
    return run.ok() ? *run : RunMetrics{};
  }
  static aorta::testing::TempDir* dir_;
};
aorta::testing::TempDir* DiagnosisPerturbed::dir_ = nullptr;

TEST_F(DiagnosisPerturbed, UnperturbedSetHasNoOutlier) {
  const RunMetrics run = run_of("none");
  ASSERT_EQ(run.per_rank.size(), 6u);
  EXPECT_TRUE(run.outliers.empty()) << run.outliers.front().reason;
}

TEST_F(DiagnosisPerturbed, LongerGemmsNameThatRankAndGemm) {
  const RunMetrics run = run_of("gemm");
  ASSERT_EQ(run.outliers.size(), 1u);
  const Finding& f = run.outliers[0];
  EXPECT_EQ(f.rank, 5);
  EXPECT_EQ(f.measure, "gemm mean kernel time");
  // 1.15 against the median of 1.00, 1.01, 0.99, 1.02, 0.98, 1.15 (1.005): 1.15 / 1.005,
  // up to the timeline's rounding of each span, (ts + dur) - ts at ts ~ 5e12 us.
  EXPECT_NEAR(f.ratio, 1.15 / 1.005, 1e-5);
  EXPECT_NE(f.reason.find("suspect this GPU"), std::string::npos) << f.reason;
  // The independent checker names the same rank, measure and ratio.
  std::vector<fs::path> files;
  for (int r = 0; r < 6; ++r) files.push_back(set_dir("gemm") / fmt::format("rank{}.json", r));
  const nlohmann::json py = independent(files)["findings"];
  ASSERT_EQ(py.size(), 1u);
  EXPECT_EQ(py[0]["rank"].get<int>(), 5);
  EXPECT_EQ(py[0]["measure"].get<std::string>(), f.measure);
  EXPECT_DOUBLE_EQ(py[0]["ratio"].get<double>(), f.ratio);
}

// The gate on the same set: 1.15 / 1.005 = 1.144 fails a 1.10 limit and passes 1.30.
TEST_F(DiagnosisPerturbed, LongerGemmsFailATightSlowdownGate) {
  const auto checks = check_thresholds(run_of("gemm"), {{"max_rank_compute_slowdown_ratio", 1.10},
                                                        {"max_rank_compute_slowdown_ratio", 1.30}});
  ASSERT_EQ(checks.size(), 2u);
  ASSERT_TRUE(checks[0].actual.has_value());
  EXPECT_NEAR(*checks[0].actual, 1.15 / 1.005, 1e-5);
  EXPECT_FALSE(checks[0].passed);
  EXPECT_EQ(checks[0].message.rfind("Slowest rank's compute kernels take 1.1443x the median", 0), 0u)
      << checks[0].message;
  EXPECT_TRUE(checks[1].passed) << checks[1].message;
}

TEST_F(DiagnosisPerturbed, LongerCollectivesNameThatRankAndItsBandwidth) {
  const RunMetrics run = run_of("collective");
  ASSERT_FALSE(run.outliers.empty());
  for (const Finding& f : run.outliers) {
    EXPECT_EQ(f.rank, 5) << f.reason;
    EXPECT_NE(f.measure.find("bus bandwidth"), std::string::npos) << f.reason;
    EXPECT_NE(f.reason.find("its compute is normal"), std::string::npos) << f.reason;
  }
  // Each of rank 1's six collective shapes is 1 / 1.3 of its own speed.
  EXPECT_EQ(run.outliers.size(), 6u);
}

// 50 us more of host stall before each of rank 1's 3326 launches that found its GPU
// idle (tools/independent_diagnosis.py counts them): its host wait grows by 166300 us,
// 29% of its 564581 us. Exactly rank 5 is named, for host wait and the idle time it
// adds, with the checker's ratios.
TEST_F(DiagnosisPerturbed, HostGapsNameThatRankAndItsHost) {
  const RunMetrics run = run_of("hostgap");
  ASSERT_EQ(run.outliers.size(), 2u);
  std::vector<fs::path> files;
  for (int r = 0; r < 6; ++r) files.push_back(set_dir("hostgap") / fmt::format("rank{}.json", r));
  const nlohmann::json py = independent(files);
  ASSERT_EQ(py["findings"].size(), 2u);
  const nlohmann::json& rank5 = py["ranks"][5]["idle"];
  const nlohmann::json& rank0 = py["ranks"][0]["idle"];  // unperturbed, scaled by 1.00
  EXPECT_EQ(rank5["host_wait_gaps"].get<uint64_t>(), rank0["host_wait_gaps"].get<uint64_t>());
  EXPECT_NEAR(rank5["host_wait_us"].get<double>() - rank0["host_wait_us"].get<double>(),
              kHostGapUs * rank0["host_wait_gaps"].get<double>(), 1e-3);
  for (size_t i = 0; i < 2; ++i) {
    const Finding& f = run.outliers[i];
    EXPECT_EQ(f.rank, 5) << f.reason;
    EXPECT_EQ(py["findings"][i]["rank"].get<int>(), 5);
    EXPECT_EQ(py["findings"][i]["measure"].get<std::string>(), f.measure);
    EXPECT_DOUBLE_EQ(py["findings"][i]["ratio"].get<double>(), f.ratio);
  }
  EXPECT_EQ(run.outliers[0].measure, "GPU host-wait time");
  EXPECT_NE(run.outliers[0].reason.find("suspect the host"), std::string::npos) << run.outliers[0].reason;
  EXPECT_EQ(run.outliers[1].measure, "GPU idle time");
  EXPECT_EQ(run.per_rank[5].diagnosis->idle.host_wait_us, rank5["host_wait_us"].get<double>());
}

}  // namespace
}  // namespace aorta::metrics
