// Any bytes as a profiler trace (plain or gzip, by magic): read_trace returns data
// or an error, never crashes, and the timeline built from what it returns is sane.
// Seeds: the real traces plus one file per corruption class (make_trace_seeds.py).
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/utf8.h"
#include "metrics/trace_set.h"
#include "tests/fuzz/fuzz_file.h"
#include "trace/timeline.h"
#include "trace/trace_reader.h"

namespace {

// Every error becomes report text: after valid_utf8 it is valid UTF-8 and dumps.
void check_report_text(const std::string& text) {
  const std::string valid = aorta::valid_utf8(text);
  if (!aorta::is_valid_utf8(valid)) __builtin_trap();
  (void)nlohmann::json(valid).dump();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = aorta::fuzz::scratch_file(data, size, "rank0.pt.trace.json");
  // The default budget, and one small enough for 64 KiB inputs to reach its checks.
  aorta::trace::TraceLimits tiny;
  tiny.max_token_bytes = 4096;
  tiny.max_state_bytes = 64 << 10;
  for (const auto& limits : {aorta::trace::TraceLimits{}, tiny}) {
    auto trace = aorta::trace::read_trace(file, aorta::trace::BasicScanMode::kInclude, limits);
    if (!trace.ok()) {
      check_report_text(trace.error().describe());
      continue;
    }
    for (auto selection : {aorta::trace::KernelSelection::kLinkedOnly, aorta::trace::KernelSelection::kIncludeUnlinked}) {
      auto b = aorta::trace::gpu_breakdown(*trace, selection);
      // Unions of intervals: no part is longer than the busy time, busy never exceeds total.
      if (b.busy_time > b.total_time + 1e-6 || b.computation_time > b.busy_time + 1e-6) __builtin_trap();
    }
  }
  // The whole per-file path: metrics are finite or the file is an error.
  std::vector<std::string> warnings;
  auto m = aorta::metrics::analyze_trace_file(file, {}, warnings);
  for (const auto& w : warnings) check_report_text(w);
  if (!m.ok()) {
    check_report_text(m.error().describe());
  } else if (!std::isfinite(m->total_time_us) || !std::isfinite(m->compute_ratio) || !std::isfinite(m->overlap_ratio)) {
    __builtin_trap();
  }
  return 0;
}
