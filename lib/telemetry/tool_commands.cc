#include "telemetry/tool_commands.h"

namespace aorta::telemetry {

const std::vector<GpuTool>& gpu_tools() {
  // Fixed strings, never config values: the sampler script runs them as they are.
  static const std::vector<GpuTool> tools = {
      {"amd-smi", "amd-smi metric --usage --power --clock --temperature --throttle --json",
       // metric --pcie has the current link only; static --bus has its maximum (two lists).
       "amd-smi metric --ecc --ecc-blocks --pcie --json && amd-smi static --bus --json"},
      {"rocm-smi", "rocm-smi --showtemp --showpower --showclocks --showuse --showmemuse --json",
       // --showrasinfo prints a table that --json drops; --showclocks has the link's current
       // speed and width ("pcie clock level"), --showclkfrq the levels it supports.
       "rocm-smi --showreplaycount --showclocks --showclkfrq --json"},
      {"nvidia-smi",
       "nvidia-smi --query-gpu=index,timestamp,temperature.gpu,temperature.memory,power.draw,clocks.sm,clocks.mem,"
       "clocks.max.sm,utilization.gpu,utilization.memory,clocks_event_reasons.active --format=csv,nounits",
       "nvidia-smi --query-gpu=index,ecc.errors.corrected.volatile.total,ecc.errors.uncorrected.volatile.total,"
       "pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max --format=csv,nounits"},
  };
  return tools;
}

}  // namespace aorta::telemetry
