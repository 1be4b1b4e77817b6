// Trace-analysis benchmark: builds large traces by replicating a real trace's events
// with shifted timestamps and ids, then measures `aorta_suite analyze` against
// Python's json.load of the same file, measured in the same run, and one plain file
// read by one thread against the same file split across two (issue 21, part 3).
// --against OTHER measures another build of aorta_suite (an earlier commit's) on the
// same file, the two taking turns, and prints the ratios (issue 34's cost).
//
// Usage: trace_bench AORTA_SUITE SOURCE_TRACE WORK_DIR [SIZE_MB] [PYTHON] [--split-only | --against OTHER]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "trace_gen.h"
#include "trace/block_masks.h"
#include "trace/event_scanner.h"

namespace fs = std::filesystem;
using aorta::trace::ScanCallbacks;
using aorta::bench::Source;
using aorta::bench::load_source;
using aorta::bench::write_trace;

namespace {

struct Measured {
  double seconds = 0;
  double peak_rss_mb = 0;
  double cpu_seconds = 0;  // user + system, all threads
  int status = 0;
};

// Runs argv to completion, with `env` ("NAME=value") added; wall time and the
// child's peak RSS.
Measured measure(const std::vector<std::string>& argv, const std::vector<std::string>& env = {}) {
  std::fflush(stdout);  // else the child inherits and prints our buffered output again
  auto begin = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const auto& e : env) putenv(const_cast<char*>(e.c_str()));
    freopen("/dev/null", "w", stdout);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  Measured m;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  m.peak_rss_mb = usage.ru_maxrss / 1024.0;
  m.cpu_seconds = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
  m.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return m;
}

}  // namespace

// The same file with --jobs 1 and --jobs 2 (one file: both threads go into it), seven
// rounds of one run each, back to back, and whether the two outputs are the same
// bytes. Best, median, and the median of each round's own ratio: on a virtual machine
// shared with other work one run says little, and its speed drifts between rounds
// more than within one.
bool split_figure(const std::string& suite, const fs::path& work, const fs::path& big, double mb) {
  fs::create_directories(work / "one");
  const fs::path file = work / "one" / big.filename();
  fs::remove(file);
  fs::create_hard_link(big, file);
  constexpr int kRounds = 7;
  std::vector<Measured> runs[2];
  for (int i = 0; i < kRounds; ++i)
    for (int jobs : {1, 2}) {
      const std::string out = (work / fmt::format("split{}.json", jobs)).string();
      runs[jobs - 1].push_back(
          measure({suite, "analyze", (work / "one").string(), "--output", out, "--jobs", std::to_string(jobs)}));
    }
  auto read = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  auto by_time = [](std::vector<Measured> v) {
    std::sort(v.begin(), v.end(), [](const Measured& a, const Measured& b) { return a.seconds < b.seconds; });
    return v;
  };
  const std::vector<Measured> one = by_time(runs[0]), two = by_time(runs[1]);
  std::vector<double> round_ratios;
  for (int i = 0; i < kRounds; ++i) round_ratios.push_back(runs[0][i].seconds / runs[1][i].seconds);
  std::sort(round_ratios.begin(), round_ratios.end());
  const size_t median = kRounds / 2;
  const bool same = read(work / "split1.json") == read(work / "split2.json") && !read(work / "split1.json").empty();
  std::printf("%-44s %9s %9s %11s %13s %12s\n", fmt::format("one plain file, {:.0f} MB, {} runs", mb, kRounds).c_str(), "best s",
              "median s", "MB/s (best)", "peak RSS MB", "CPU seconds");
  for (const auto* r : {&one, &two})
    std::printf("%-44s %9.2f %9.2f %11.1f %13.1f %12.2f\n", r == &one ? "--jobs 1 (read whole)" : "--jobs 2 (split in two)",
                r->front().seconds, (*r)[median].seconds, mb / r->front().seconds, r->front().peak_rss_mb, r->front().cpu_seconds);
  bool ok = same;
  for (const auto* r : {&one, &two})
    for (const auto& m : *r) ok = ok && m.status == 0;
  std::printf("split speed-up: %.2fx best, %.2fx median, %.2fx median of the rounds' own (%.2fx to %.2fx); metrics %s\n\n",
              one.front().seconds / two.front().seconds, one[median].seconds / two[median].seconds,
              round_ratios[median], round_ratios.front(), round_ratios.back(),
              same ? "identical (the JSON outputs are the same bytes)" : "DIFFER");
  return ok;
}

// AORTA_SUITE against OTHER on the same file: 5 turns each, alternating so both see
// the same page cache and machine load; the medians and their ratios.
bool against_figure(const std::string& suite, const std::string& other, const fs::path& work, const fs::path& big,
                    double mb) {
  std::vector<Measured> mine, theirs;
  for (int turn = 0; turn < 5; ++turn)
    for (auto [binary, into] : {std::pair{&suite, &mine}, std::pair{&other, &theirs}})
      into->push_back(measure({*binary, "analyze", big.string(), "--output", (work / "against.json").string(), "--jobs", "1"}));
  auto median = [](std::vector<Measured> runs, double Measured::*field) {
    std::sort(runs.begin(), runs.end(), [&](const Measured& a, const Measured& b) { return a.*field < b.*field; });
    return runs[runs.size() / 2].*field;
  };
  bool ok = true;
  for (const auto& r : mine) ok = ok && r.status == 0;
  for (const auto& r : theirs) ok = ok && r.status == 0;
  std::printf("%.0f MB, --jobs 1, median of 5 turns each  %9s %9s %13s\n", mb, "seconds", "CPU s", "peak RSS MB");
  for (auto [name, runs] : {std::pair{"this build", &mine}, std::pair{"the other build", &theirs}})
    std::printf("%-40s %9.2f %9.2f %13.1f\n", name, median(*runs, &Measured::seconds),
                median(*runs, &Measured::cpu_seconds), median(*runs, &Measured::peak_rss_mb));
  std::printf("this / other: time %.3fx, CPU %.3fx, peak RSS %.3fx%s\n",
              median(mine, &Measured::seconds) / median(theirs, &Measured::seconds),
              median(mine, &Measured::cpu_seconds) / median(theirs, &Measured::cpu_seconds),
              median(mine, &Measured::peak_rss_mb) / median(theirs, &Measured::peak_rss_mb), ok ? "" : " (a run FAILED)");
  return ok;
}

int main(int argc, char** argv) {
  if (argc < 4 || std::string(argv[1]) == "--help") {
    std::printf("usage: trace_bench AORTA_SUITE SOURCE_TRACE WORK_DIR [SIZE_MB=1024] [PYTHON=python3] "
                "[--split-only | --against OTHER_AORTA_SUITE]\n");
    return argc < 4 ? 2 : 0;
  }
  bool split_only = false;
  std::string against;
  for (int i = 4; i < argc; ++i) {
    const std::string a = argv[i];
    const int take = a == "--split-only" ? 1 : a == "--against" && i + 1 < argc ? 2 : 0;
    if (take == 0) continue;
    if (a == "--split-only") split_only = true;
    else against = argv[i + 1];
    for (int j = i; j + take < argc; ++j) argv[j] = argv[j + take];
    argc -= take;
    --i;
  }
  std::string suite = argv[1];
  fs::path work = argv[3];
  uint64_t size_mb = argc > 4 ? std::stoull(argv[4]) : 1024;
  std::string python = argc > 5 ? argv[5] : "python3";
  fs::create_directories(work / "ranks");
  Source src = load_source(argv[2]);

  fs::path big = work / "big.pt.trace.json";
  double mb = write_trace(src, big, size_mb << 20, 0) / 1048576.0;
  std::printf("trace: %.1f MB (%zu source events replicated, span %.0f us per copy)\n\n", mb, src.events.size(), src.span);
  if (!against.empty()) return against_figure(suite, against, work, big, mb) ? 0 : 1;
  const bool split_ok = split_figure(suite, work, big, mb);
  if (split_only) return split_ok ? 0 : 1;

  Measured py = measure({python, "-c", "import json,sys; json.load(open(sys.argv[1]))", big.string()});
  // Best of two for each row: the page cache is warm for all of them.
  auto analyze_one = [&](const std::vector<std::string>& env) {
    std::vector<std::string> argv{suite, "analyze", big.string(), "--output", (work / "a.json").string(), "--jobs", "1"};
    Measured a = measure(argv, env), b = measure(argv, env);
    return b.seconds < a.seconds ? b : a;
  };
  Measured one = analyze_one({});
  // The scanner's widest vector unit here, and the SSE2 path every x86-64 CPU has.
  std::string isa = aorta::trace::block_masks_for_this_cpu().isa;
  Measured sse2 = analyze_one({"AORTA_TRACE_SIMD=sse2"});
  std::printf("%-44s %9s %11s %13s\n", "one file", "seconds", "MB/s", "peak RSS MB");
  std::printf("%-44s %9.2f %11.1f %13.1f\n", "python3 json.load (baseline)", py.seconds, mb / py.seconds, py.peak_rss_mb);
  std::printf("%-44s %9.2f %11.1f %13.1f\n", fmt::format("aorta_suite analyze --jobs 1 ({})", isa).c_str(), one.seconds,
              mb / one.seconds, one.peak_rss_mb);
  std::printf("%-44s %9.2f %11.1f %13.1f\n", "  the same with AORTA_TRACE_SIMD=sse2", sse2.seconds, mb / sse2.seconds,
              sse2.peak_rss_mb);
  std::printf("speed-up over json.load: %.1fx; peak RSS %.1f%% of the file size\n\n", py.seconds / one.seconds,
              100.0 * one.peak_rss_mb / mb);

  uint64_t per_rank = std::max<uint64_t>(size_mb / 4, 1) << 20;
  double total = 0;
  for (int r = 0; r < 4; ++r) total += write_trace(src, work / "ranks" / fmt::format("rank{}.json", r), per_rank, r) / 1048576.0;
  std::printf("%-44s %9s %11s %13s\n", fmt::format("4 ranks, {:.0f} MB in all", total).c_str(), "seconds", "MB/s",
              "peak RSS MB");
  double base = 0;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  for (int jobs = 1; jobs <= std::min<long>(4, std::max<long>(cores, 2)); jobs *= 2) {
    Measured m = measure({suite, "analyze", (work / "ranks").string(), "--output", (work / "r.json").string(), "--jobs",
                          std::to_string(jobs)});
    if (jobs == 1) base = m.seconds;
    std::printf("%-44s %9.2f %11.1f %13.1f   speed-up %.2fx\n", fmt::format("--jobs {}", jobs).c_str(), m.seconds,
                total / m.seconds, m.peak_rss_mb, base / m.seconds);
  }
  std::printf("(%ld cores on this machine)\n", cores);
  return split_ok && py.status == 0 && one.status == 0 && sse2.status == 0 ? 0 : 1;
}
