// How a byte stream is compressed: a trace file read here (trace/byte_source.h), a
// copy a node sends (job/copy_check.h), the stream decoder both read through
// (common/stream_decoder.h). One enum, so no conversions between them.
#pragma once

namespace aorta {

enum class Compression { kNone, kGzip, kZstd };

}  // namespace aorta
