#include "job/kernel_log.h"

#include <ctime>
#include <regex>
#include <sstream>

namespace aorta::job {
namespace {

struct Category {
  const char* name;
  std::regex pattern;
  bool warn_only;
};

const std::vector<Category>& categories() {
  auto re = [](const char* p) { return std::regex(p, std::regex::icase | std::regex::ECMAScript); };
  // Specific categories first, so a page fault is named "fault" rather than caught
  // by crash's broad \bfault\b.
  static const std::vector<Category> kCategories = {
      {"gpu_reset", re("GPU reset begin|GPU hang|cp might be in an unrecoverable state|fence wait loop timeout expired"), false},
      {"test_fail", re("Test failure"), false},
      {"fault", re("no-retry page fault|Illegal register access|PROTECTION_FAULT_STATUS"), false},
      {"driver", re("Queue preemption failed for queue|Failed to evict process queues|No more SDMA queue to allocate|amdgpu: process pid"), false},
      {"hardware", re("hardware error|hardware fail|ras error|(?:uncorrectable|correctable err)(?!.*initialized)|EDAC (?:MC\\d+: \\d+ [CU]E |DEVICE\\d+: [CU]E: )"), false},
      {"network", re("NIC Link is Down|link is down|ib_uverb|CQE|queue catastrophic|CQ error"), false},
      {"crash", re("crashed|Traceback|cut here|Bug:|Call Trace|RIP:|end trace|amdgpu: Fatal error|segfault|show_stack|dump_stack|\\bfault\\b"), false},
      {"oversubscribed", re("Runlist is getting oversubscribed|Expect reduced ROCm performance"), true},
  };
  return kCategories;
}

}  // namespace

std::optional<std::pair<std::string, bool>> classify_kernel_line(const std::string& line) {
  static const std::regex kIgnored("ALLOWED|DENIED|IPVS: .*no destination available");
  if (std::regex_search(line, kIgnored)) return std::nullopt;
  for (const auto& c : categories())
    if (std::regex_search(line, c.pattern)) return std::make_pair(std::string(c.name), c.warn_only);
  return std::nullopt;
}

std::optional<double> iso_line_time(const std::string& line) {
  // 2026-12-01T03:05:07,123456+00:00 text
  int y, mo, d, h, mi, s;
  char tz_sign = 0;
  int tz_h = 0, tz_m = 0;
  long frac = 0;
  int consumed = 0;
  if (std::sscanf(line.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d,%ld%c%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &frac, &tz_sign, &tz_h,
                  &tz_m, &consumed) < 10)
    return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  double t = static_cast<double>(timegm(&tm));
  int offset = (tz_h * 3600 + tz_m * 60) * (tz_sign == '-' ? -1 : 1);
  return t - offset + frac / 1e6;
}

std::vector<KernelLogMatch> scan_kernel_log(const std::string& host, const std::string& dmesg_text, double start,
                                            double end) {
  std::vector<KernelLogMatch> matches;
  std::istringstream lines(dmesg_text);
  std::string line;
  while (std::getline(lines, line)) {
    auto when = iso_line_time(line);
    if (!when || *when < start || *when > end) continue;
    if (auto category = classify_kernel_line(line)) matches.push_back({host, category->first, line, category->second});
  }
  return matches;
}

std::string dmesg_command() {
  return "if [ \"$(id -u)\" = 0 ]; then dmesg --time-format iso; else sudo -n dmesg --time-format iso; fi";
}

KernelScan scan_nodes(NodeExec& exec, double start, double end) {
  KernelScan scan;
  auto results = exec.on_hosts(dmesg_command(), std::chrono::seconds(120));
  for (const auto& r : results) {
    if (!r.result.ok() || r.result->exit_code != 0) {
      scan.failed_hosts.push_back(r.host);
      continue;
    }
    auto found = scan_kernel_log(r.host, r.result->output, start, end);
    scan.matches.insert(scan.matches.end(), found.begin(), found.end());
  }
  return scan;
}

}  // namespace aorta::job
