// The trace reader's memory budget. A trace is untrusted input: a 10 MB gzip can
// inflate to one 10 GB string or to billions of tiny events, and without a bound
// the reader would take all of the machine's memory and every rank's result would
// be lost to one bad_alloc. Within the budget a file is read; beyond it the file
// gets an error naming the limit, and the other ranks are kept.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/result.h"

namespace aorta::trace {

// What one record costs the budget: not only itself but what the analysis makes of
// it afterwards, so that a file within the budget stays within it to the reports.
// A ProfilerStep annotation becomes a sorted copy, a StepMetrics, the run summary's
// entries (a set, a map node, a time) and a report row (capped): `analyze` of a
// million of them peaked at 360 bytes each. A CPU event becomes up to six interval
// copies on the CPU timeline (16 bytes each), an index and its 24-byte record: 1.5
// million peaked at about 100 bytes each. A flood of either is refused by name, as
// a flood of GPU events is.
inline constexpr uint64_t kStepStateBytes = 512;
inline constexpr uint64_t kCpuEventStateBytes = 128;

// Overrides the default budget: a byte count with an optional K, M, G or T suffix
// (powers of 1024), e.g. AORTA_TRACE_MEMORY_LIMIT=8G.
inline constexpr const char* kMemoryLimitVariable = "AORTA_TRACE_MEMORY_LIMIT";

struct TraceLimits {
  // What one file may take in all: the default fits many ranks read at once on a
  // node, and is about 40x what a real 1 GB Kineto trace needs (bench/trace_bench).
  uint64_t total_bytes = uint64_t{4} << 30;
  // The longest single event or kept top-level value: the read buffer must hold it
  // whole. Real events are under a few KB.
  uint64_t max_token_bytes = uint64_t{64} << 20;
  // Event records, interned ids and name caches together (the bytes in use). 3/8 of
  // the total: a vector that doubles holds old and new at once, and the timeline
  // later sorts copies. A real 1 GB trace uses about 60 MiB, so the default reads
  // traces of 20 GB and more.
  uint64_t max_state_bytes = uint64_t{3} << 29;

  static TraceLimits with_total(uint64_t total_bytes);
  std::string describe() const;  // "4096 MiB (token 64 MiB, event state 1536 MiB)"
};

// "4G", "512M", "1073741824": bytes, or an error naming the text.
Result<uint64_t> parse_byte_size(std::string_view text);

// The defaults, or AORTA_TRACE_MEMORY_LIMIT when it is set.
Result<TraceLimits> trace_limits_from_environment();

}  // namespace aorta::trace
