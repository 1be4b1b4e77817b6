// The GPU telemetry figures the optional gates read (issue 47): the largest new
// uncorrectable ECC/RAS count of any GPU, the largest throttled share of any GPU, and
// how many GPUs have a PCIe link below its maximum. Each names the GPU it is of.
// Nothing without telemetry, or when no GPU reports the counters a figure needs: a
// configured gate then fails as unavailable.
#pragma once

#include <optional>

#include "metrics/gate_subject.h"

namespace aorta::metrics {

struct RunMetrics;

std::optional<double> max_gpu_uncorrectable_errors(const RunMetrics& run);
std::optional<GateSubject> gpu_with_most_uncorrectable_errors(const RunMetrics& run);

// throttled_share (telemetry_findings.h) of the most throttled GPU that sampled.
std::optional<double> max_gpu_throttled_share(const RunMetrics& run);
std::optional<GateSubject> most_throttled_gpu(const RunMetrics& run);

std::optional<double> pcie_links_downgraded(const RunMetrics& run);
// The first GPU (cluster order) whose link is below its maximum; nothing when none is.
std::optional<GateSubject> first_downgraded_link(const RunMetrics& run);

}  // namespace aorta::metrics
