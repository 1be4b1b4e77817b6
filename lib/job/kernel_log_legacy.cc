// The original's legacy kernel-log scan (CVS_DMESG_PARSER=legacy, reference 1.7):
// `dmesg -T` between the run's first and last minute, and the choice of backend.
#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include "job/kernel_log.h"

namespace aorta::job {

Result<KernelLogBackend> kernel_log_backend(const char* value) {
  // As CVS's use_node_scraper_dmesg: stripped, lower-cased; its legacy aliases select
  // the legacy scan, any other value (unset and empty too) node-scraper's.
  std::string v = value ? value : "";
  const auto first = v.find_first_not_of(" \t\r\n\f\v");
  v = first == std::string::npos ? "" : v.substr(first, v.find_last_not_of(" \t\r\n\f\v") - first + 1);
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* legacy : {"legacy", "cvs", "0", "false", "off", "no"})
    if (v == legacy) return KernelLogBackend::kLegacy;
  return KernelLogBackend::kIso;
}

std::optional<std::string> legacy_minute(const std::string& date_output) {
  // Checked to the letter: the minute goes into an awk program in the node's shell.
  static const std::regex kDate("([A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}):[0-9]{2}\\s*");
  std::smatch m;
  if (!std::regex_match(date_output, m, kDate)) return std::nullopt;
  return m[1].str();
}

std::string legacy_dmesg_command(const std::string& start_minute, const std::string& end_minute) {
  return "if [ \"$(id -u)\" = 0 ]; then dmesg -T; else sudo -n dmesg -T; fi | awk '/" + start_minute + ".*/,/" +
         end_minute + ".*/' | grep -E -v 'ALLOWED|DENIED' --color=never";
}

KernelScan scan_nodes_legacy(NodeExec& exec, const std::string& start_minute, const std::string& end_minute) {
  KernelScan scan;
  for (const auto& r : exec.on_hosts(legacy_dmesg_command(start_minute, end_minute), std::chrono::seconds(120))) {
    const bool clean = r.result.ok() && r.result->exit_code == 1 && r.result->output.empty();
    if (!r.result.ok() || (r.result->exit_code != 0 && !clean)) {
      scan.failed_hosts.push_back(r.host);
      continue;
    }
    std::istringstream lines(r.result->output);
    std::string line;
    while (std::getline(lines, line))
      if (auto category = classify_kernel_line(line))
        scan.matches.push_back({r.host, category->first, line, category->second, "CVS legacy pattern", line, 1});
  }
  return scan;
}

}  // namespace aorta::job
