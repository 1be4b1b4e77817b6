// The pass after a read's last event, for a whole file and a merged split one
// alike: link keys decided, threads numbered, records sorted, one annotation per
// step, distributedInfo checked. Internal to the reader (trace_reader.h).
#pragma once

#include <filesystem>

#include "common/result.h"
#include "trace/part_state.h"

namespace aorta::trace::reader {

// The read's TraceData, finished; `threads` may sort on two threads.
Result<TraceData> finish(PartState& state, const std::filesystem::path& file, unsigned threads);

}  // namespace aorta::trace::reader
