#include "trace_gen.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

#include "trace/event_scanner.h"

namespace fs = std::filesystem;
using aorta::trace::ScanCallbacks;

namespace aorta::bench {
namespace {

// Adds `delta` to the number after each `"key": ` in an event's text.
void shift_numbers(std::string& event, const char* key, double delta, bool integer) {
  std::string needle = std::string("\"") + key + "\":";
  for (size_t pos = event.find(needle); pos != std::string::npos; pos = event.find(needle, pos + 1)) {
    size_t start = pos + needle.size();
    while (start < event.size() && event[start] == ' ') ++start;
    size_t end = start;
    while (end < event.size() && (isdigit(static_cast<unsigned char>(event[end])) || event[end] == '.' || event[end] == '-'))
      ++end;
    if (end == start) continue;
    double value = std::stod(event.substr(start, end - start));
    std::string text = integer ? fmt::format("{}", static_cast<long long>(value + delta)) : fmt::format("{:.3f}", value + delta);
    event.replace(start, end - start, text);
  }
}

}  // namespace

Source load_source(const fs::path& trace) {
  Source s;
  double lo = 1e300, hi = -1e300;
  ScanCallbacks cb;
  cb.on_events = [&](const aorta::trace::EventBatch& batch) -> aorta::Status {
    for (const auto& ref : *batch.events) s.events.emplace_back(batch.buffer + ref.start, ref.size);
    return aorta::ok_status();
  };
  auto scanned = aorta::trace::scan_trace(trace, cb, {});
  if (!scanned) throw std::runtime_error(scanned.error().describe());
  for (const auto& e : s.events) {
    auto ts = e.find("\"ts\":");
    if (ts == std::string::npos) continue;
    double v = std::strtod(e.c_str() + ts + 5, nullptr);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  s.span = hi - lo + 1000;
  return s;
}

// Writes a Kineto-shaped trace of about target_bytes for `rank`.
uint64_t write_trace(const Source& src, const fs::path& path, uint64_t target_bytes, int rank) {
  std::ofstream out(path, std::ios::binary);
  out << "{\n  \"schemaVersion\": 1,\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " << rank
      << ", \"world_size\": 4},\n  \"traceEvents\": [\n";
  uint64_t written = 0;
  bool first = true;
  for (int copy = 0; written < target_bytes; ++copy) {
    for (std::string e : src.events) {
      if (copy > 0) {
        shift_numbers(e, "ts", copy * src.span, false);
        for (const char* key : {"id", "correlation", "External id"}) shift_numbers(e, key, copy * 10000000.0, true);
      }
      out << (first ? "  " : ",\n  ") << e;
      first = false;
      written += e.size() + 4;
    }
  }
  out << "\n  ],\n  \"traceName\": \"trace_bench\"\n}\n";
  return fs::file_size(path);
}

}  // namespace aorta::bench
