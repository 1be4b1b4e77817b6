// The GPU telemetry part of the JSON outputs (aorta_benchmark_report.json, analyze):
// nodes (tool, errors, cut at the cap) and one object per GPU with every summary
// field, null where the tool did not report it.
#pragma once

#include <nlohmann/json.hpp>

#include "telemetry/gpu_telemetry.h"

namespace aorta::result_json {

nlohmann::ordered_json telemetry_json(const telemetry::RunTelemetry& run);

}  // namespace aorta::result_json
