// The head's reading of the collected sample files (telemetry/node-<i>.log): each
// file parsed by its tool's format and reduced to the per-GPU summary of
// gpu_telemetry.h. A damaged file or record is named in its node's errors and the
// rest is used.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "telemetry/gpu_telemetry.h"
#include "telemetry/sample_file.h"

namespace aorta::telemetry {

// A sample file's text and the name its errors carry (the file's name).
struct NamedSamples {
  std::string name;
  std::string text;
};

// The files in the cluster's order.
RunTelemetry summarise(const std::vector<NamedSamples>& files);
RunTelemetry summarise(const std::vector<std::filesystem::path>& files);

// <folder>/*.log in node order (node-2.log before node-10.log); nothing when the
// folder is absent or holds no sample file.
std::optional<RunTelemetry> read_telemetry_folder(const std::filesystem::path& folder);

// The telemetry of `analyze <traces>`: <traces>/telemetry, else a telemetry folder
// beside <traces> (a run folder's torch_traces and telemetry); nothing when neither is.
std::optional<RunTelemetry> read_telemetry_beside(const std::filesystem::path& traces);

// At most this many errors per node are kept (a hostile file has one per line); a last
// line says how many more there were.
inline constexpr size_t kMaxNodeErrors = 20;

}  // namespace aorta::telemetry
