// The GPUs' telemetry joined to the diagnosis (issue 47): an outlier rank's finding
// gets what its GPU showed out of line while the benchmark ran, and a GPU whose
// telemetry is out of line is a finding of its own even when its times are not (yet).
#pragma once

#include <optional>
#include <string>

#include "metrics/run_metrics.h"
#include "telemetry/gpu_telemetry.h"

namespace aorta::metrics {

// A GPU is out of line when any of these holds:
// - throttled: a throttle reason active over 10% of the window. Below that, even a
//   deep clock cut costs the step under the 5% the compute outlier test can see, and
//   a tick or two of power capping in a short window is not a sick GPU. Reasons that
//   are no throttle (the GPU idle, clocks the operator set) do not count.
// - hot: a sensor's max more than max(10 °C, 3.5 x 1.4826 MAD) above the median of
//   that sensor's max over the fleet's GPUs (outliers.cc's robust cut, with a fixed
//   floor: a fleet of equal GPUs has a MAD near 0, and a few degrees are no fault);
//   only where kMinRanks or more GPUs report the sensor.
// - slow clock: its SM/GFX clock median under 90% of the fleet's.
// - link downgraded: its PCIe link below its maximum speed or width.
// - new ECC/RAS errors: uncorrectable always; correctable above 0 as a note (they
//   were corrected, but a count that rises foretells uncorrectable ones).
inline constexpr double kThrottledShare = 0.10;
inline constexpr double kHotMarginC = 10;
inline constexpr double kSlowClockShare = 0.90;

// The largest share of the window any counted throttle reason was active; 0 when none.
double throttled_share(const telemetry::GpuTelemetry& gpu);

// One sentence of what `gpu` showed out of line among `run`'s GPUs: "its GPU spent 41 %
// of the window throttled (thermal), reached 97 °C (hotspot) against the fleet's
// median 78 °C, ..."; nothing when it is healthy.
std::optional<std::string> gpu_evidence(const telemetry::GpuTelemetry& gpu, const telemetry::RunTelemetry& run);

// run.outliers joined to run.telemetry: each rank's finding whose node and GPU have
// telemetry gets that GPU's evidence; then each GPU out of line that no rank finding
// names is a finding (of_gpu, "node3 GPU 3"), in the cluster's order. Called once the
// telemetry is in run (again: the same result); without telemetry nothing changes.
void join_telemetry(RunMetrics& run);

}  // namespace aorta::metrics
