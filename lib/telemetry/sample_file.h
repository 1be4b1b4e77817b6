// A sample file (tool_commands.h) split into its records: the header's host, tool
// and interval, each #sample's time, kind and body, the #error lines and whether the
// file was cut at its cap. Damage (no header, a bad #sample line) is named, never fatal.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace aorta::telemetry {

struct SampleRecord {
  double time = 0;   // epoch seconds
  bool edge = false;  // an edge record (run start or end), else a tick
  size_t line = 0;    // the #sample line's number, for error texts
  std::string body;
};

struct SampleFile {
  std::string host;
  std::string tool;  // "none" when the node had no tool; empty when the header is missing
  double interval = 0;
  std::vector<SampleRecord> records;
  std::vector<std::string> errors;  // "line 7: ..." ; #error records as the sampler wrote them
  bool truncated = false;
};

SampleFile read_sample_file(std::string_view text);

}  // namespace aorta::telemetry
