#include "telemetry/tool_commands.h"

namespace aorta::telemetry {

const std::vector<GpuTool>& gpu_tools() {
  // Fixed strings, never config values: the sampler script runs them as they are.
  static const std::vector<GpuTool> tools = {
      {"amd-smi", "amd-smi metric --usage --power --clock --temperature --throttle --json",
       "amd-smi metric --ecc --ecc-blocks --pcie --json"},
      {"rocm-smi", "rocm-smi --showtemp --showpower --showclocks --showuse --showmemuse --json",
       "rocm-smi --showrasinfo all --showbus --showpcibw --showreplaycount --json"},
      {"nvidia-smi",
       "nvidia-smi --query-gpu=index,timestamp,temperature.gpu,temperature.memory,power.draw,clocks.sm,clocks.mem,"
       "clocks.max.sm,utilization.gpu,utilization.memory,clocks_event_reasons.active --format=csv,nounits",
       "nvidia-smi --query-gpu=index,ecc.errors.corrected.volatile.total,ecc.errors.uncorrected.volatile.total,"
       "pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max --format=csv,nounits"},
  };
  return tools;
}

}  // namespace aorta::telemetry
