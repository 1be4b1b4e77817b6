// One GPU's readings in one record of a sample file, as a tool's format parser
// returns them: the common shape the summary (telemetry/summary) reduces.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "telemetry/gpu_telemetry.h"

namespace aorta::telemetry {

struct GpuReading {
  std::map<std::string, double> temperature_c;  // "edge", "hotspot", "memory", "gpu" (nvidia-smi's core sensor)
  std::optional<double> power_w, clock_mhz, memory_clock_mhz, utilisation_pct;
  std::map<std::string, bool> throttle;  // every reason the tool reported in this record -> active
  std::optional<ErrorCounts> ecc;        // counters as read (not deltas)
  std::map<std::string, ErrorCounts> ecc_blocks;
  std::optional<double> speed_current, speed_max, width_current, width_max, replays;
};

// A record's body as read: GPUs by index; what could not be read, named.
struct Readings {
  std::map<int, GpuReading> gpus;
  std::vector<std::string> errors;
};

}  // namespace aorta::telemetry
