// Streams a Chrome/Kineto trace and hands out each traceEvents element as a byte
// range, without ever holding the whole file or its JSON tree in memory: multi-GB
// traces are read in fixed chunks, and simdjson then parses one small event at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace aorta::trace {

// One element of traceEvents (or of a legacy bare array), in the batch's buffer.
struct EventRef {
  size_t start = 0;     // index of its '{' in the buffer
  size_t size = 0;
  uint64_t offset = 0;  // byte offset in the (uncompressed) file
};

// The complete events of one read chunk, in file order. `buffer` holds them with at
// least one byte before the first (a separator: whitespace, ',' or '[') and readable
// padding after the last, so a consumer may parse them as one JSON array by writing
// '[' and ']' over those bytes and restoring them.
struct EventBatch {
  char* buffer = nullptr;
  size_t buffer_size = 0;
  const std::vector<EventRef>* events = nullptr;
};

struct ScanCallbacks {
  std::function<Status(const EventBatch& batch)> on_events;
  // A top-level member other than traceEvents that the caller asked to keep.
  std::function<void(std::string_view key, std::string_view json)> on_metadata;
};

struct ScanStats {
  uint64_t bytes = 0;   // uncompressed bytes read
  uint64_t events = 0;
  bool legacy_array = false;  // bare JSON array, as Debian's torch 1.13 writes
};

// The default longest event or kept value (trace_limits.h has the reader's budget).
inline constexpr uint64_t kDefaultMaxTokenBytes = uint64_t{64} << 20;

// Reads `file` (plain JSON or gzip, detected from the content) and calls back for
// every event. `metadata_keys` lists the top-level keys whose values are wanted.
// Besides damaged JSON it refuses what a JSON parser of the whole file would
// refuse and a streaming scan could miss: bytes other than one ',' between events,
// a second traceEvents or metadata key, anything but whitespace after the top-level
// value (trailing garbage, a second document), and an event or kept value longer
// than max_token_bytes (the read buffer must hold it whole).
Result<ScanStats> scan_trace(const std::filesystem::path& file, const ScanCallbacks& callbacks,
                             std::initializer_list<std::string_view> metadata_keys,
                             uint64_t max_token_bytes = kDefaultMaxTokenBytes);

// One part of a plain trace, so that several threads can scan one file (the reader
// splits a large file, trace_reader.h). A part after the first starts at the '{' of
// a traceEvents element; a part before the last ends just before one. Where the
// split was guessed wrong (the byte was inside a string, or not in traceEvents) the
// part before it does not end between elements, and its scan is an error: the
// caller then reads the file whole, which is always right.
struct ScanPart {
  uint64_t begin = 0;
  uint64_t end = UINT64_MAX;  // UINT64_MAX: to the end of the file (the last part)
  bool legacy_array = false;  // parts after the first: the file is a bare JSON array
};

Result<ScanStats> scan_trace_part(const std::filesystem::path& file, const ScanCallbacks& callbacks,
                                  std::initializer_list<std::string_view> metadata_keys, uint64_t max_token_bytes,
                                  const ScanPart& part);

}  // namespace aorta::trace
