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

#include "common/result.h"

namespace aorta::trace {

struct ScanCallbacks {
  // One element of traceEvents (or of a legacy bare array). The bytes stay readable
  // for `readable` bytes from `data` (>= size + simdjson padding).
  std::function<Status(const char* data, size_t size, size_t readable, uint64_t offset)> on_event;
  // A top-level member other than traceEvents that the caller asked to keep.
  std::function<void(std::string_view key, std::string_view json)> on_metadata;
};

struct ScanStats {
  uint64_t bytes = 0;   // uncompressed bytes read
  uint64_t events = 0;
  bool legacy_array = false;  // bare JSON array, as Debian's torch 1.13 writes
};

// Reads `file` (plain JSON or gzip, detected from the content) and calls back for
// every event. `metadata_keys` lists the top-level keys whose values are wanted.
Result<ScanStats> scan_trace(const std::filesystem::path& file, const ScanCallbacks& callbacks,
                             std::initializer_list<std::string_view> metadata_keys);

}  // namespace aorta::trace
