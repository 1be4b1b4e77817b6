// Hand-made GPU telemetry for the diagnosis and report tests: node3's GPUs 0..3, healthy
// but for GPU 3, hot and thermally throttled (the issue 47 example).
#pragma once

#include "telemetry/gpu_telemetry.h"

namespace aorta::testing {

// A healthy GPU: 78 °C hotspot at most, 1980 MHz, a power cap 5% of the window (under
// the 10% that counts), idle 30% (no throttle), its link at full speed, no new errors.
inline telemetry::GpuTelemetry healthy_gpu(int gpu) {
  telemetry::GpuTelemetry g;
  g.host = "node3";
  g.gpu = gpu;
  g.samples = 60;
  g.window_seconds = 59;
  g.temperature_c["hotspot"] = {70, 78};
  g.clock_median_mhz = 1980;
  g.throttle_share = {{"sw_power_cap", 0.05}, {"gpu_idle", 0.30}};
  g.ecc = telemetry::ErrorCounts{};
  g.link.emplace();
  g.link->speed_current = g.link->speed_max = 32;
  g.link->width_current = g.link->width_max = 16;
  return g;
}

// GPU 3 thermally throttled 41% of the window at 97 °C, its clock median 1410 MHz.
inline telemetry::RunTelemetry fleet_with_hot_gpu3() {
  telemetry::RunTelemetry t;
  t.nodes.emplace_back();
  t.nodes.back().host = "node3";
  t.nodes.back().tool = "nvidia-smi";
  t.fleet_clock_median_mhz = 1980;
  for (int gpu = 0; gpu < 4; ++gpu) t.gpus.push_back(healthy_gpu(gpu));
  telemetry::GpuTelemetry& hot = t.gpus[3];
  hot.temperature_c["hotspot"] = {91, 97};
  hot.clock_median_mhz = 1410;
  hot.throttle_share["hw_thermal_slowdown"] = 0.41;
  return t;
}

// GPU 3's evidence in fleet_with_hot_gpu3.
inline constexpr const char* kHotGpu3 =
    "its GPU spent 41% of the window throttled (hw_thermal_slowdown), reached 97 °C (hotspot) against the fleet's "
    "median 78 °C, ran at a clock median of 1410 MHz against the fleet's 1980 MHz";

}  // namespace aorta::testing
