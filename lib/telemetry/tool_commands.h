// The GPU tools the telemetry sampler tries on a node, in order, and what it asks of
// each: the one place the sampler (node side) and the parsers (head side) agree on
// what a sample file holds.
//
// A sample file (telemetry.log in the node's work folder; collected as
// telemetry/node-<i>.log in the run folder) is text, one record after another:
//   #aorta-telemetry v1 host=<cluster host name> tool=<tool name or none> interval=<seconds>
//   #sample <epoch seconds> edge        then the tool's edge_command output (run start)
//   #sample <epoch seconds> tick        then the tool's tick_command output, every interval
//   #sample <epoch seconds> edge        then edge_command again (run end)
//   #error <epoch seconds> <text>       a command that failed, hung past its limit or was cut
//   #truncated <bytes>                  the file reached its size cap: no more ticks
//   #end <epoch seconds> <reason>       the sampler stopped (training ended, stopped, deadline)
// A record's body never starts with '#' (every tool prints JSON or CSV).
#pragma once

#include <string>
#include <vector>

namespace aorta::telemetry {

struct GpuTool {
  std::string name;          // "amd-smi", "rocm-smi", "nvidia-smi"
  std::string tick_command;  // per interval: temperatures, power, clocks, use, throttle
  std::string edge_command;  // at start and end: ECC/RAS counters, PCIe link state
};

// The tools in the order tried: the first on PATH is used.
const std::vector<GpuTool>& gpu_tools();

}  // namespace aorta::telemetry
