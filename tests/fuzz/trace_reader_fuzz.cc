// Any bytes as a profiler trace (plain or gzip, by magic): read_trace returns data
// or an error, never crashes, and the timeline built from what it returns is sane.
#include "tests/fuzz/fuzz_file.h"
#include "trace/timeline.h"
#include "trace/trace_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = aorta::fuzz::scratch_file(data, size, "rank0.pt.trace.json");
  auto trace = aorta::trace::read_trace(file);
  if (!trace.ok()) return 0;
  for (auto selection : {aorta::trace::KernelSelection::kLinkedOnly, aorta::trace::KernelSelection::kIncludeUnlinked}) {
    auto b = aorta::trace::gpu_breakdown(*trace, selection);
    // Unions of intervals: no part is longer than the busy time, busy never exceeds total.
    if (b.busy_time > b.total_time + 1e-6 || b.computation_time > b.busy_time + 1e-6) __builtin_trap();
  }
  return 0;
}
