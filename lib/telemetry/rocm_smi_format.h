// rocm-smi --json (ROCm/rocm_smi_lib python_smi_tools/rocm_smi.py, formatJson:
// every printLog line becomes "key": "value" under "card<N>"; tests/data/telemetry/
// README.md names the commit): "Temperature (Sensor edge) (C)": "35.0", "Current
// Socket Graphics Package Power (W)": "132.0", "sclk clock speed:": "(1980Mhz)",
// "GPU use (%)": "99", "pcie clock level": "1 (16.0GT/s x16)", "PCIe Replay Count": "0";
// --showclkfrq lists the supported PCIe levels as "0": "2.5GT/s x16", ... with
// the current one starred. rocm-smi prints no throttle reasons and no RAS counts in
// JSON (showRasInfo's table is skipped under --json).
#pragma once

#include <string_view>

#include "telemetry/readings.h"

namespace aorta::telemetry {

Readings parse_rocm_smi(std::string_view body);

}  // namespace aorta::telemetry
