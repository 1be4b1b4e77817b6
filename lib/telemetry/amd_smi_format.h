// amd-smi's JSON (ROCm/amdsmi amdsmi_cli/amdsmi_commands.py, metric_gpu and
// static_gpu; tests/data/telemetry/README.md names the commit): a list with one
// object per GPU, {"gpu": 0, "temperature": {...}, "power": {...}, ...}; values are
// {"value": x, "unit": u} (older versions: bare numbers or strings) or "N/A".
// The edge command prints two such lists (metric, then static --bus).
#pragma once

#include <string_view>

#include "telemetry/readings.h"

namespace aorta::telemetry {

Readings parse_amd_smi(std::string_view body);

}  // namespace aorta::telemetry
