// Reading one large plain trace on several threads (TraceSplit): where to split it,
// the parts read at once, and their records merged into those of a whole read.
// Internal to the reader (trace_reader.h).
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "trace/event_scanner.h"
#include "trace/part_state.h"
#include "trace/trace_limits.h"

namespace aorta::trace::reader {

// Where to split a plain file into equal parts (TraceSplit): the '{' of an element
// of traceEvents near each share, found by a cheap look at the bytes there ('}', ','
// and '{' with only whitespace between). A guess inside a string is caught when the
// part before it is scanned (ScanPart). Empty: no split (too small, compressed, or no
// element found near a share).
std::vector<ScanPart> plan_parts(const std::filesystem::path& file, const TraceSplit& split);

// The parts on `threads` threads (this one among them), each taking the next part
// as it finishes one. Empty when a part failed (damaged JSON, a wrong guess at a
// split point, its share of the budget): the caller reads the file whole, which
// finds the error a whole read finds, with the same words.
std::optional<PartState> read_parts(const std::filesystem::path& file, bool basic, const TraceLimits& limits,
                                    const std::vector<ScanPart>& plan, unsigned threads);

}  // namespace aorta::trace::reader
