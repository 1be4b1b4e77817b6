// Any bytes as a TraceLens per-rank workbook (perf_rank0.xlsx, issue 29): read_gpu_timeline
// returns times or an error, never a crash nor more memory than its limits allow
// (run_fuzzer.sh's -rss_limit_mb); an error names the file and stays short; every
// time is a finite number >= 0. Seeds: the real reports and seeds/workbook
// (make_offline_seeds.py), one small workbook per shape the reader must refuse.
#include <cmath>

#include "tests/fuzz/fuzz_file.h"
#include "tracelens/workbook.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto file = aorta::fuzz::scratch_file(data, size, "perf_rank0.xlsx");
  const auto got = aorta::tracelens::read_gpu_timeline(file);
  if (!got) {
    const std::string& message = got.error().message;
    if (message.find(file.string()) == std::string::npos || message.size() > file.string().size() + 300) __builtin_trap();
    return 0;
  }
  for (const auto& [type, ms] : *got)
    if (!std::isfinite(ms) || ms < 0) __builtin_trap();
  return 0;
}
