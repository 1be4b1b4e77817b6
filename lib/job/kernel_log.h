// Kernel-log (dmesg) scan for the benchmark window (reference §1.7): GPU resets,
// crashes, page faults, driver, hardware and network errors seen while it ran.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "job/node_exec.h"

namespace aorta::job {

struct KernelLogMatch {
  std::string host;
  std::string category;  // gpu_reset, crash, fault, ...
  std::string line;
  bool warn_only = false;  // degraded-state notices: logged, not failed
};

// The category of a kernel-log line, or nothing for a clean line.
std::optional<std::pair<std::string, bool>> classify_kernel_line(const std::string& line);

// Seconds since the epoch of a `dmesg --time-format iso` line, or nothing.
std::optional<double> iso_line_time(const std::string& line);

// Matching lines of `dmesg_text` whose time lies in [start, end].
std::vector<KernelLogMatch> scan_kernel_log(const std::string& host, const std::string& dmesg_text, double start,
                                            double end);

// The command that prints the kernel log with ISO times: dmesg as root, else sudo -n.
std::string dmesg_command();

struct KernelScan {
  std::vector<KernelLogMatch> matches;
  std::vector<std::string> failed_hosts;  // scan could not run there: coverage is incomplete
};

// Runs the scan on every host for the window.
KernelScan scan_nodes(NodeExec& exec, double start, double end);

}  // namespace aorta::job
