// One GPU's readings over a sample file, in record order: the step between the
// tools' formats and the per-GPU summary.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "telemetry/gpu_telemetry.h"
#include "telemetry/readings.h"
#include "telemetry/sample_file.h"

namespace aorta::telemetry {

struct TimedReading {
  double time = 0;
  GpuReading reading;
};

struct GpuSeries {
  std::string host;
  int gpu = 0;
  std::vector<TimedReading> ticks;  // the ticks this GPU appeared in
  std::vector<TimedReading> edges;  // start, end (more when the sampler wrote more)
};

// Each record parsed by the file's tool; what could not be read is added to `errors`
// as "<name> line <n>: <why>". By GPU index.
std::vector<GpuSeries> node_series(const SampleFile& file, const std::string& name, std::vector<std::string>& errors);

// The median of every tick's clock over every GPU; nothing when no tick has one.
std::optional<double> fleet_clock_median(const std::vector<GpuSeries>& series);

GpuTelemetry summarise_gpu(const GpuSeries& s, std::optional<double> fleet_clock_median_mhz);

// The median of `values` (the mean of the middle two for an even count); nothing when empty.
std::optional<double> median(std::vector<double> values);

}  // namespace aorta::telemetry
