// nvidia-smi --query-gpu=... --format=csv,nounits (nvidia-smi(1), "Query options";
// tests/data/telemetry/README.md): a header of the queried fields ("power.draw [W]",
// units in brackets, kept by nounits), then one line per GPU of comma-separated
// values; "[N/A]" / "[Not Supported]" for what the GPU does not report. The header
// names each field canonically ("clocks.sm" is printed "clocks.current.sm [MHz]": seen
// from nvidia-smi 580.159.04 on an H100);
// clocks_event_reasons.active is a hex bitmask of NVML's clocks event reasons.
#pragma once

#include <string_view>

#include "telemetry/readings.h"

namespace aorta::telemetry {

Readings parse_nvidia_smi(std::string_view body);

}  // namespace aorta::telemetry
