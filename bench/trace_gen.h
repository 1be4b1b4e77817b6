// Large Kineto-shaped traces for the benchmarks: a real trace's events replicated
// with shifted timestamps and ids (trace_bench, collect_bench).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace aorta::bench {

struct Source {
  std::vector<std::string> events;
  double span = 0;
};

// The events of a real trace (.json, .json.gz); throws when it cannot be read.
Source load_source(const std::filesystem::path& trace);

// Writes a Kineto-shaped trace of about target_bytes for `rank`; its size.
uint64_t write_trace(const Source& src, const std::filesystem::path& path, uint64_t target_bytes, int rank);

}  // namespace aorta::bench
