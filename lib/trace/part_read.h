// One read of a trace's events into a PartState: the whole file, or one part of a
// split one (split_read.h), under the memory budget, with room for the records made
// up front. Internal to the reader (trace_reader.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>

#include <simdjson.h>

#include "common/result.h"
#include "trace/event_scanner.h"
#include "trace/part_state.h"
#include "trace/trace_limits.h"

namespace aorta::trace::reader {

// Reads the whole file (`scan_part` null) or one part of it into `state`. `stop` ends a
// part early when another part has failed. `parser` is the thread's: its buffers,
// grown to the batches' size, serve every part the thread reads.
Status read_into(PartState& state, simdjson::ondemand::parser& parser, const std::filesystem::path& file, bool basic,
                 const TraceLimits& limits, uint64_t max_state_bytes, const ScanPart* scan_part,
                 const std::atomic<bool>* stop);

// Room in a read's arrays up front for `bytes` of trace (with `all`; else only keyed
// events), at about 1.5x to 2x the densities of the 1 GB bench trace, made from a real
// one: per KB 0.91 keyed events, 0.18 GPU events, 0.73 launches, 0.24 flow starts and
// 0.67 flow ends. Address space, its pages touched as they fill; without it a vector
// copies itself as it grows, and every copy touches fresh memory, whose first touch is
// a page fault that clears the page (a third of the read time on a VM, measured). Only
// a hint: all of it within `budget` (and an eighth of a finite address-space limit),
// none where the address space is short.
void reserve_for(TraceData& data, uint64_t bytes, bool all, uint64_t budget);

}  // namespace aorta::trace::reader
