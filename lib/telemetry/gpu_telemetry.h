// What the telemetry sampler saw, summarised per GPU over the benchmark's window: the
// record the parsers fill (telemetry/summary), the JSON report writes, and the
// diagnosis and the gates read.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace aorta::telemetry {

struct MeanMax {
  double mean = 0;
  double max = 0;
  bool operator==(const MeanMax&) const = default;
};

// Error counts at the end less those at the start.
struct ErrorCounts {
  double correctable = 0;
  double uncorrectable = 0;
  bool operator==(const ErrorCounts&) const = default;
};

struct LinkState {
  std::optional<double> speed_current, speed_max;  // GT/s, or the PCIe generation where only that is reported
  std::optional<double> width_current, width_max;  // lanes
  std::optional<double> replay_delta;              // replays/NAKs over the window, where reported
  bool downgraded = false;  // current below max (speed or width) at the start or the end
  bool operator==(const LinkState&) const = default;
};

struct GpuTelemetry {
  std::string host;  // the cluster's name for the node, as the diagnosis names it
  int gpu = 0;       // the GPU index on the node, as a rank's binding names it
  size_t samples = 0;
  double window_seconds = 0;                    // first tick to last tick
  std::map<std::string, MeanMax> temperature_c;  // sensor (edge, hotspot, memory) -> mean, max
  std::optional<MeanMax> power_w;
  std::optional<double> clock_median_mhz;         // SM / GFX
  std::optional<double> memory_clock_median_mhz;
  std::optional<double> utilisation_mean_pct;
  // Share of ticks with the clock under 90 % of the fleet's median clock (every GPU's ticks).
  std::optional<double> share_under_fleet_clock;
  std::map<std::string, double> throttle_share;  // reason -> share of ticks it was active
  std::optional<ErrorCounts> ecc;                  // total over blocks
  std::map<std::string, ErrorCounts> ecc_blocks;   // per RAS block, where reported
  std::optional<LinkState> link;
  bool operator==(const GpuTelemetry&) const = default;
};

struct NodeTelemetry {
  std::string host;
  std::string tool;                 // the tool used, or "none"
  std::vector<std::string> errors;  // commands that failed, hung or printed what could not be read
  bool truncated = false;           // the file reached its size cap
  bool operator==(const NodeTelemetry&) const = default;
};

struct RunTelemetry {
  std::vector<NodeTelemetry> nodes;  // in the cluster's order
  std::vector<GpuTelemetry> gpus;    // by node, then GPU index
  std::optional<double> fleet_clock_median_mhz;
  bool operator==(const RunTelemetry&) const = default;
};

}  // namespace aorta::telemetry
