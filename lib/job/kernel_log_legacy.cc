// The original's legacy kernel-log scan (CVS_DMESG_PARSER=legacy, reference 1.7):
// `dmesg -T` between the run's first and last minute, and the choice of backend.
#include <algorithm>
#include <cctype>
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
  // Checked to the letter, "Wed Sep  3 12:00:05" and trailing blanks only: the minute
  // goes into an awk program in the node's shell.
  const std::string shape = "Aaa Aaa _9 99:99:99";
  std::string text = date_output;
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  if (text.size() != shape.size()) return std::nullopt;
  for (size_t i = 0; i < shape.size(); ++i) {
    const unsigned char c = text[i];
    const bool fits = shape[i] == 'A'   ? c >= 'A' && c <= 'Z'
                      : shape[i] == 'a' ? c >= 'a' && c <= 'z'
                      : shape[i] == '9' ? c >= '0' && c <= '9'
                      : shape[i] == '_' ? c == ' ' || (c >= '0' && c <= '9')
                                        : c == static_cast<unsigned char>(shape[i]);
    if (!fits) return std::nullopt;
  }
  return text.substr(0, 16);
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
        scan.matches.push_back({r.host, category->first, line, category->second, "CVS " + category->first + " pattern", line, 1, {}});
  }
  return scan;
}

}  // namespace aorta::job
