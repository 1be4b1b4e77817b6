#include "job/lock_owner.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

namespace aorta::job {
namespace {

std::string first_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string own_pid_ns() {
  char target[128] = {};
  ssize_t n = readlink("/proc/self/ns/pid", target, sizeof(target) - 1);
  return n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string();
}

std::string utc_now() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// The value after "<key> " in one ", "-separated field of the line.
std::optional<std::string> field(const std::string& line, const std::string& key) {
  const std::string prefix = key + " ";
  size_t at = line.starts_with(prefix) ? 0 : line.find(", " + prefix);
  if (at == std::string::npos) return std::nullopt;
  at += at == 0 ? prefix.size() : prefix.size() + 2;
  size_t end = line.find(", ", at);
  return line.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

template <typename T>
bool whole_number(const std::string& text, T& out) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos) return false;
  out = static_cast<T>(std::stoull(text));
  return true;
}

}  // namespace

std::optional<unsigned long long> start_ticks(long pid) {
  if (pid <= 0) return std::nullopt;
  std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)), {});
  const size_t comm_end = stat.rfind(')');  // the command name may hold spaces and ')'
  if (comm_end == std::string::npos || comm_end + 2 > stat.size()) return std::nullopt;
  std::istringstream fields(stat.substr(comm_end + 2));
  std::string value;
  for (int i = 3; i <= 22 && fields >> value; ++i) {
    if (i == 3 && value == "Z") return std::nullopt;  // a zombie has ended, whoever reaps it
    unsigned long long ticks = 0;
    if (i == 22 && whole_number(value, ticks)) return ticks;
  }
  return std::nullopt;
}

LockOwner this_suite(const std::string& run_id) {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  LockOwner o{run_id, host, utc_now(), {first_line_of("/proc/sys/kernel/random/boot_id"), own_pid_ns(), getpid(), 0}};
  o.process.start_ticks = start_ticks(getpid()).value_or(0);
  return o;
}

std::string owner_line(const LockOwner& o) {
  return fmt::format("run {}, host {}, pid {}, started {}, boot {}, pidns {}, ticks {}", o.run_id, o.host,
                     o.process.pid, o.started, o.process.boot_id, o.process.pid_ns, o.process.start_ticks);
}

std::optional<LockOwner> parse_owner_line(const std::string& line) {
  LockOwner o;
  auto run = field(line, "run"), host = field(line, "host"), pid = field(line, "pid"),
       started = field(line, "started"), boot = field(line, "boot"), ns = field(line, "pidns"),
       ticks = field(line, "ticks");
  if (!run || !host || !pid || !started || !boot || !ns || !ticks) return std::nullopt;
  if (!whole_number(*pid, o.process.pid) || !whole_number(*ticks, o.process.start_ticks)) return std::nullopt;
  o.run_id = *run;
  o.host = *host;
  o.started = *started;
  o.process.boot_id = *boot;
  o.process.pid_ns = *ns;
  return o;
}

bool gone_from_here(const ProcessIdentity& owner) {
  const std::string boot = first_line_of("/proc/sys/kernel/random/boot_id");
  const std::string ns = own_pid_ns();
  if (owner.pid <= 0 || boot.empty() || ns.empty() || owner.boot_id != boot || owner.pid_ns != ns) return false;
  auto ticks = start_ticks(owner.pid);
  return !ticks || *ticks != owner.start_ticks;
}

}  // namespace aorta::job
