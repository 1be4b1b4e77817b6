#include "trace/trace_reader.h"

#include <system_error>
#include <vector>

#include <simdjson.h>

#include "trace/finish_read.h"
#include "trace/part_read.h"
#include "trace/split_read.h"

// The read's steps live in their own files (namespace reader): raw_event.h (an
// event's fields), part_state.h (the records), part_read.h (one read), split_read.h
// (several threads), finish_read.h (the pass after the last event).
namespace aorta::trace {

using reader::PartState;

Result<TraceData> read_trace(const std::filesystem::path& file, BasicScanMode basic_mode, const TraceLimits& limits,
                             const TraceSplit& split) {
  const bool basic = basic_mode == BasicScanMode::kInclude;
  // The basic scan's sums depend on the order of their terms: only the GPU timeline
  // read is split, so both give the numbers of a whole read, bit for bit.
  if (!basic) {
    const std::vector<ScanPart> plan = reader::plan_parts(file, split);
    if (!plan.empty())
      if (auto merged = reader::read_parts(file, basic, limits, plan, split.threads))
        return reader::finish(*merged, file, split.threads);
  }
  PartState state(false);
  // A compressed file's size is its compressed one: less room than its records need,
  // never more.
  std::error_code ec;
  if (const uint64_t bytes = std::filesystem::file_size(file, ec); !ec)
    reader::reserve_for(state.data, bytes, true, limits.max_state_bytes);
  simdjson::ondemand::parser parser;
  if (Status s = reader::read_into(state, parser, file, basic, limits, limits.max_state_bytes, nullptr, nullptr); !s)
    return s.error();
  return reader::finish(state, file, 1);
}

}  // namespace aorta::trace
