// `aorta_suite analyze` end to end on the shipped traces (issue 21, parts 2 and 3):
// the same JSON from .json.zst as from .json.gz, and from one plain file read by one
// thread or split across two.
#include "metrics/trace_set.h"

#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "redact/known_secrets.h"
#include "common/shell_quote.h"
#include "tests/gunzip.h"
#include "tests/temp_dir.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::metrics {
namespace {

const std::filesystem::path kData = AORTA_TEST_DATA_DIR;

using aorta::testing::gunzip;

void write_binary(const std::filesystem::path& path, const std::string& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string zstd_compress(const std::string& text) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  std::string out(ZSTD_compressBound(text.size()), '\0');
  const size_t n = ZSTD_compress2(cctx, out.data(), out.size(), text.data(), text.size());
  ZSTD_freeCCtx(cctx);
  out.resize(ZSTD_isError(n) ? 0 : n);
  return out;
}

// The analyze JSON, with the folder and the file names' endings (which differ by
// design) made the same.
nlohmann::json analyze(const std::filesystem::path& dir, int jobs) {
  const auto out = dir.parent_path() / (dir.filename().string() + "-" + std::to_string(jobs) + ".json");
  const std::string command = shell_quote(AORTA_SUITE_BINARY) + " analyze " + shell_quote(dir.string()) +
                              " --output " + shell_quote(out.string()) + " --jobs " + std::to_string(jobs) +
                              " > /dev/null 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(out);
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  EXPECT_FALSE(doc.is_discarded());
  doc.erase("trace_dir");
  std::string text = doc.dump();
  for (const std::string& from : {dir.string(), std::string(".json.gz"), std::string(".json.zst")})
    for (size_t at; (at = text.find(from)) != std::string::npos;) text.replace(at, from.size(), "X");
  return nlohmann::json::parse(text);
}

// Issue 29: a GPU trace whose step annotations have sorted keys (#1) or an escaped
// '#' (#2) has its two steps, not the warning that it has none; a nested one (#9) and
// a duplicate (#2 again) are named in warnings and change no step.
TEST(AnalyzeSteps, EverySpellingIsAStepAndDroppedOnesAreNamed) {
  aorta::testing::TempDir dir;
  auto file = dir.write("rank0.json", R"J({"traceEvents": [
  {"args":{},"cat":"user_annotation","dur":100,"name":"ProfilerStep#1","ph":"X","pid":100,"tid":100,"ts":0},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep\u00232","pid":100,"tid":100,"ts":100,"dur":50},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":100,"tid":100,"ts":100,"dur":50},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#9","pid":100,"tid":100,"ts":20,"dur":5},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":10,"dur":1,"args":{"correlation":1}},
  {"ph":"s","cat":"ac2g","name":"ac2g","id":1,"pid":100,"tid":100,"ts":10},
  {"ph":"f","cat":"ac2g","name":"ac2g","id":1,"pid":0,"tid":7,"ts":20,"bp":"e"},
  {"ph":"X","cat":"kernel","name":"Cijk_Alik_Bljk","pid":0,"tid":7,"ts":20,"dur":40,"args":{"correlation":1}},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":30,"dur":1,"args":{"correlation":2}},
  {"ph":"s","cat":"ac2g","name":"ac2g","id":2,"pid":100,"tid":100,"ts":30},
  {"ph":"f","cat":"ac2g","name":"ac2g","id":2,"pid":0,"tid":7,"ts":70,"bp":"e"},
  {"ph":"X","cat":"kernel","name":"Cijk_Alik_Bljk","pid":0,"tid":7,"ts":70,"dur":10,"args":{"correlation":2}}
]})J");
  std::vector<std::string> warnings;
  auto m = analyze_trace_file(file, {}, warnings);
  ASSERT_TRUE(m.ok()) << m.error().describe();
  EXPECT_EQ(m->parser, ParserPath::kGpuTimeline);
  ASSERT_EQ(m->steps.size(), 2u);
  EXPECT_EQ(m->steps[0].step, 1);
  EXPECT_EQ(m->steps[0].gpu_events, 2u);  // launched at 10 and 30, both in #1 [0, 100)
  EXPECT_DOUBLE_EQ(*m->steps[0].compute_ms, 0.05);
  EXPECT_EQ(m->steps[1].step, 2);
  EXPECT_EQ(m->steps[1].gpu_events, 0u);
  const std::string name = file.string();
  EXPECT_EQ(warnings,
            (std::vector<std::string>{
                name + ": exact duplicate ProfilerStep annotations, counted once: 1; the first: ProfilerStep#2 at ts "
                       "100 us, dur 50 us",
                name + ": ProfilerStep annotations inside another step's span, not counted as steps (their time and "
                       "events count in the step around them): 1; the first: ProfilerStep#9 at ts 20 us, dur 5 us, "
                       "inside ProfilerStep#1 at ts 0 us, dur 100 us"}));
}

TEST(AnalyzeZstd, ShippedTracesGiveTheSameJsonAsTheirGzipTwins) {
  aorta::testing::TempDir dir;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kData)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".json.gz")) continue;
    // One trace per folder: several of them claim the same rank.
    const auto gz_dir = dir.path() / ("gz" + std::to_string(files)), zst_dir = dir.path() / ("zst" + std::to_string(files));
    std::filesystem::create_directories(gz_dir);
    std::filesystem::copy_file(entry.path(), gz_dir / name);
    write_binary(zst_dir / (name.substr(0, name.size() - 3) + ".zst"), zstd_compress(gunzip(entry.path())));
    ++files;
    const nlohmann::json gz = analyze(gz_dir, 1), zst = analyze(zst_dir, 1);
    ASSERT_TRUE(gz.contains("performance")) << gz.dump(2);
    // nlohmann compares doubles exactly: bit for bit.
    EXPECT_EQ(gz, zst) << name << "\n" << gz.dump(2) << "\n---\n" << zst.dump(2);
  }
  ASSERT_EQ(files, 6);
}

// Issue 16: one progress line per trace as it is done, counting up to N, with the
// file's uncompressed size (read back here from the file itself) and a rate; a trace
// that fails says so.
TEST(AnalyzeProgress, OneLinePerTraceWithItsSizeAndRate) {
  aorta::testing::TempDir dir;
  const std::string rank0 = gunzip(kData / "h200-aorta-overlap_rank0.pt.trace.json.gz");
  write_binary(dir.path() / "rank0" / "a.json", rank0);
  write_binary(dir.path() / "rank1" / "b.json", "{\"traceEvents\": [");
  AnalyzeOptions options;
  options.jobs = 2;
  std::vector<std::string> lines;
  options.progress = [&](const std::string& line) { lines.push_back(line); };
  TraceSet set = analyze_traces(dir.path(), options);
  ASSERT_EQ(lines.size(), 2u);
  std::string good = lines[0].find(" a.json ") != std::string::npos ? lines[0] : lines[1];
  std::string bad = lines[0].find(" b.json ") != std::string::npos ? lines[0] : lines[1];
  const std::string size = fmt::format(" a.json {:.1f} MB in ", static_cast<double>(rank0.size()) / 1e6);
  EXPECT_NE(good.find(size), std::string::npos) << good << " lacks" << size;
  EXPECT_NE(good.find(" MB/s); elapsed "), std::string::npos) << good;
  EXPECT_NE(bad.find(" b.json "), std::string::npos);
  EXPECT_NE(bad.find(", failed; elapsed "), std::string::npos) << bad;
  // Counted 1/2 then 2/2, whichever finished first.
  EXPECT_TRUE(lines[0].starts_with("[parse] 1/2 traces: ") || lines[1].starts_with("[parse] 1/2 traces: "));
  EXPECT_TRUE(lines[0].starts_with("[parse] 2/2 traces: ") || lines[1].starts_with("[parse] 2/2 traces: "));
  EXPECT_EQ(set.files_parsed, 1u);
}

// Issue 46: past 8 traces a progress line per quarter of them, not one per trace (512
// ranks printed 512 lines), the last one counting all of them.
TEST(AnalyzeProgress, PastEightTracesALineAQuarter) {
  aorta::testing::TempDir dir;
  for (int r = 0; r < 12; ++r) write_binary(dir.path() / fmt::format("rank{}", r) / "t.json", "{\"traceEvents\": []}");
  AnalyzeOptions options;
  options.jobs = 3;
  std::vector<std::string> lines;
  options.progress = [&](const std::string& line) { lines.push_back(line); };
  analyze_traces(dir.path(), options);
  ASSERT_EQ(lines.size(), 4u);
  for (int q = 0; q < 4; ++q)
    EXPECT_TRUE(lines[q].starts_with(fmt::format("[parse] {}/12 traces: ", 3 * (q + 1)))) << lines[q];
}

// Issue 42, 8: a trace whose name carries a registered secret (a training that names
// its files after an environment value) is shown on the progress line by its name with
// the secret cut.
TEST(AnalyzeProgress, FileNamesAreRedacted) {
  aorta::testing::TempDir dir;
  redact::forget_known_secrets();
  ASSERT_TRUE(redact::add_known_secret("Zq7Xw2Pl9Kd4"));
  write_binary(dir.path() / "rank0" / "run-Zq7Xw2Pl9Kd4.pt.trace.json", "{\"traceEvents\": []}");
  AnalyzeOptions options;
  std::vector<std::string> lines;
  options.progress = [&](const std::string& line) { lines.push_back(line); };
  analyze_traces(dir.path(), options);
  redact::forget_known_secrets();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0].starts_with("[parse] 1/1 traces: run-<redacted>.pt.trace.json ")) << lines[0];
}

TEST(AnalyzeSplit, OnePlainFileGivesTheSameJsonWithOneThreadOrMore) {
  aorta::testing::TempDir dir;
  for (const auto& entry : std::filesystem::directory_iterator(kData)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".json.gz")) continue;
    // One file per folder: --jobs N then gives that file N threads. The 29 MB
    // traces are split in two and in three (8 MiB parts at least); their launches,
    // flows and kernels all lie in the last 41% of the file, so only three parts put
    // the split among them (a launch in one part, its kernel in the next).
    const auto folder = dir.path() / name.substr(0, name.size() - 8);
    write_binary(folder / name.substr(0, name.size() - 3), gunzip(entry.path()));
    const nlohmann::json one = analyze(folder, 1), two = analyze(folder, 2), three = analyze(folder, 3);
    ASSERT_TRUE(one.contains("performance")) << name << one.dump(2);
    EXPECT_EQ(one, two) << name << "\n" << one.dump(2) << "\n---\n" << two.dump(2);
    EXPECT_EQ(one, three) << name << "\n" << one.dump(2) << "\n---\n" << three.dump(2);
  }
}

}  // namespace
}  // namespace aorta::metrics
