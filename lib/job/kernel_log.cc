#include "job/kernel_log.h"

#include <cstdio>
#include <ctime>
#include <map>

#include "job/kernel_events.h"
#include "job/kernel_patterns.h"
#include "common/pcre_pattern.h"

namespace aorta::job {
namespace {

// Lines CVS's legacy scan drops before matching (AppArmor notices, IPVS chatter).
const PcrePattern& legacy_ignored() {
  static const PcrePattern kIgnored("ALLOWED|DENIED|IPVS: .*no destination available");
  return kIgnored;
}

std::optional<double> iso_time_at(const char* text) {
  // 2026-12-01T03:05:07,123456+00:00 text
  int y, mo, d, h, mi, s;
  char tz_sign = 0;
  int tz_h = 0, tz_m = 0;
  long frac = 0;
  if (std::sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d,%ld%c%2d:%2d", &y, &mo, &d, &h, &mi, &s, &frac, &tz_sign, &tz_h, &tz_m) <
      10)
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

}  // namespace

std::optional<std::pair<std::string, bool>> classify_kernel_line(const std::string& line) {
  if (legacy_ignored().matches(line)) return std::nullopt;
  const auto& compiled = compiled_legacy_patterns();
  for (size_t i = 0; i < compiled.size(); ++i)
    if (compiled[i].matches(line))
      return std::make_pair(std::string(legacy_patterns()[i].category), legacy_patterns()[i].warn_only);
  return std::nullopt;
}

std::optional<double> iso_line_time(const std::string& line) {
  if (auto t = iso_time_at(line.c_str())) return t;
  // `dmesg -x`: "kern  :err   : 2026-..." (facility and level, each padded).
  const size_t mark = line.find(" : ");
  if (mark == std::string::npos || mark > 24) return std::nullopt;
  return iso_time_at(line.c_str() + mark + 3);
}

std::vector<KernelLogMatch> scan_kernel_log(const std::string& host, const std::string& dmesg_text, double start,
                                            double end, KernelEventRules rules) {
  std::vector<std::string> window;
  size_t begin = 0;
  while (begin < dmesg_text.size()) {
    size_t stop = dmesg_text.find('\n', begin);
    if (stop == std::string::npos) stop = dmesg_text.size();
    std::string line = dmesg_text.substr(begin, stop - begin);
    begin = stop + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a log saved with CRLF line ends
    auto when = iso_line_time(line);
    if (when && *when >= start && *when <= end) window.push_back(std::move(line));
  }
  auto matches = kernel_events(window, rules);
  for (auto& m : matches) m.host = host;
  return matches;
}

std::string dmesg_command() {
  return "if [ \"$(id -u)\" = 0 ]; then dmesg --time-format iso -x; else sudo -n dmesg --time-format iso -x; fi";
}

KernelScan scan_nodes(NodeExec& exec, double start, double end) {
  KernelScan scan;
  auto results = exec.on_hosts(dmesg_command(), std::chrono::seconds(120));
  for (const auto& r : results) {
    if (!r.result.ok() || r.result->exit_code != 0) {
      scan.failed_hosts.push_back(r.host);
      continue;
    }
    const auto& config = exec.variant().kernel_log;
    auto found = scan_kernel_log(r.host, r.result->output, start, end, {true, config.check_unknown_dmesg_errors, &config});
    scan.matches.insert(scan.matches.end(), found.begin(), found.end());
  }
  return scan;
}

std::string kernel_event_text(const KernelLogMatch& m) {
  std::string text = "ERROR - Failure pattern *** " + m.line + " *** seen in Dmesg on node " + m.host + ": " + m.message;
  if (m.count == 1) return text;
  text += " (" + std::to_string(m.count) + " times";
  for (size_t i = 0; i < m.timestamps.size() && m.timestamps.size() > 1; ++i) text += (i ? ", " : "; at ") + m.timestamps[i];
  return text + ")";
}

}  // namespace aorta::job
