#include "job/workdir.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "common/shell_quote.h"
#include "common/utf8.h"
#include "job/phase.h"

namespace aorta::job {
namespace {

constexpr const char* kUnsafe = "UNSAFE ";
constexpr const char* kBusy = "BUSY ";
constexpr const char* kLockPid = "CVS_AORTA_LOCK=";
constexpr const char* kLockFail = "LOCKFAIL ";

std::string lock_dir(const config::Variant& v) { return v.aorta_path + "/" + kSuiteFolder; }

// One lock file per node: on storage that several nodes share, each node's run
// holds its own, so a run never locks itself out.
std::string lock_file(const config::Variant& v, const std::string& host) {
  std::string name = host;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  return lock_dir(v) + "/lock." + name;
}

// The owner line: how a refused run learns who holds the folder.
std::string owner_info(const RunState& state) {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char started[32];
  std::strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return fmt::format("run {}, host {}, pid {}, started {}", state.run_id, host, getpid(), started);
}

// The text after `marker` on its line, if the output has such a line.
std::optional<std::string> line_after(const std::string& output, const std::string& marker) {
  size_t at = output.rfind(marker);
  if (at == std::string::npos || (at > 0 && output[at - 1] != '\n')) return std::nullopt;
  size_t end = output.find('\n', at);
  return output.substr(at + marker.size(), end == std::string::npos ? std::string::npos : end - at - marker.size());
}

std::string acquire_command(const config::Variant& v, const std::string& host, const std::string& info, long lifetime) {
  std::string l = shell_quote(lock_file(v, host));
  return "umask 077 && mkdir -p -- " + shell_quote(lock_dir(v)) + " || exit 1\n"
         "l=" + l + "; info=" + shell_quote(info) + "\n"
         // flock holds the lock for as long as its child lives; setsid puts both in a
         // process group of their own, which release_workdir_locks ends.
         "setsid nohup flock -n -E 75 \"$l\" bash -c 'printf \"%s, lock holder pid %s on this node\\n\" \"$1\" "
         "\"$PPID\" > \"$2.owner.tmp\" && mv -f -- \"$2.owner.tmp\" \"$2.owner\" && exec sleep \"$3\"' _ \"$info\" "
         "\"$l\" " + std::to_string(lifetime) + " > /dev/null 2>&1 < /dev/null &\n"
         "pid=$!\n"
         "for i in $(seq 1 100); do\n"
         "  if grep -qF -- \"$info\" \"$l.owner\" 2>/dev/null; then echo " + kLockPid + "$pid; exit 0; fi\n"
         "  kill -0 \"$pid\" 2>/dev/null || break\n"
         "  sleep 0.05\n"
         "done\n"
         // A holder that ended by itself without the lock being busy (flock or setsid
         // missing, no room for the owner line) is a failure of its own, not a busy folder.
         "if ! kill -0 \"$pid\" 2>/dev/null; then wait \"$pid\"; rc=$?; if [ \"$rc\" != 75 ]; then "
         "echo; echo \"" + std::string(kLockFail) + "the lock holder (setsid flock) ended with status $rc\"; exit 1; fi; fi\n"
         "kill -TERM -- -\"$pid\" 2>/dev/null\n"
         "sleep 0.2\n"
         "owner=$(cat -- \"$l.owner\" 2>/dev/null)\n"
         "echo; echo \"" + kBusy + "${owner:-a run that has not written its owner line yet}\"\n"
         "exit 75\n";
}

// An owner line: "run R, host H, pid P, started T, lock holder pid Q on this node".
struct LockOwner {
  std::string run_id, host;
  long pid = 0, holder = 0;
  std::time_t started = 0;
};

std::optional<LockOwner> parse_owner(const std::string& line) {
  LockOwner o;
  char run[80] = {}, host[256] = {}, started[32] = {};
  if (std::sscanf(line.c_str(), "run %79[^,], host %255[^,], pid %ld, started %31[^,], lock holder pid %ld on this node",
                  run, host, &o.pid, started, &o.holder) != 5)
    return std::nullopt;
  std::tm utc{};
  if (!strptime(started, "%Y-%m-%dT%H:%M:%SZ", &utc)) return std::nullopt;
  o.run_id = run;
  o.host = host;
  o.started = timegm(&utc);
  return o;
}

// When process `pid` started (epoch seconds), from /proc; nullopt when it is gone.
std::optional<double> process_start(long pid) {
  std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)), {});
  const size_t comm_end = stat.rfind(')');  // the command name may hold spaces and ')'
  if (comm_end == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(comm_end + 2));
  std::string field;
  unsigned long long ticks = 0;
  for (int i = 3; i <= 22 && fields >> field; ++i)  // field 22: start time, ticks after boot
    if (i == 22) ticks = std::stoull(field);
  std::ifstream proc_stat("/proc/stat");
  for (std::string key; proc_stat >> key;)
    if (key == "btime") {
      double boot = 0;
      proc_stat >> boot;
      return boot + static_cast<double>(ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
    }
  return std::nullopt;
}

// A lock is abandoned when the suite that took it ran on this head node and is gone:
// its pid is free, or now belongs to a process started after the lock was taken.
// A suite on another head node cannot be seen from here, so its lock is never taken.
bool abandoned_here(const LockOwner& owner) {
  char here[256] = {};
  gethostname(here, sizeof(here) - 1);
  if (owner.host != here || owner.pid <= 0) return false;
  auto start = process_start(owner.pid);
  return !start || *start > static_cast<double>(owner.started) + 2;
}

// Busy nodes whose lock was abandoned (abandoned_here): the old holder is ended
// (only a process whose command line names the old run) and the lock taken again,
// each saying so in `notes`. results[i] is replaced by the new attempt's.
void take_over_abandoned_locks(NodeExec& exec, std::vector<cluster::HostResult>& results, const std::string& info,
                               long lifetime, std::vector<std::string>& notes) {
  const auto& v = exec.variant();
  std::vector<size_t> which;
  std::vector<std::string> hosts, commands;
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    if (!r.result.ok() || r.result->exit_code == 0) continue;
    auto busy = line_after(r.result->output, kBusy);
    auto owner = busy ? parse_owner(*busy) : std::nullopt;
    if (!owner || !abandoned_here(*owner)) continue;
    RunState old;
    old.run_id = owner->run_id;
    which.push_back(i);
    hosts.push_back(r.host);
    commands.push_back(release_lock_command(v, r.host, old, owner->holder) + "\n" +
                       acquire_command(v, r.host, info, lifetime));
    notes.push_back(fmt::format("node {}: took over the aorta_path lock of run {}: its suite (pid {} on this head "
                                "node) is no longer running; its lock holder (pid {}) was ended",
                                r.host, printable(owner->run_id), owner->pid, owner->holder));
  }
  if (hosts.empty()) return;
  auto again = cluster::run_on_hosts(exec.transport(), hosts, commands, std::chrono::seconds(60));
  for (size_t k = 0; k < which.size(); ++k) results[which[k]] = std::move(again[k]);
}

}  // namespace

std::string release_lock_command(const config::Variant& v, const std::string& host, const RunState& state, long pid) {
  std::string mine = shell_quote("run " + state.run_id + ",");
  // Only a process whose command line names this run is ended: the pid may have been
  // reused since, and a lock file may already belong to a later run.
  return fmt::format(
      "pid={}; if tr '\\0' ' ' < /proc/$pid/cmdline 2>/dev/null | grep -qF -- {}; then "
      "kill -TERM -- -$pid 2>/dev/null || true; "
      // Zombies count as gone: an init that reaps slowly must not hold up teardown.
      "for i in $(seq 1 25); do ps -o stat= -g $pid 2>/dev/null | grep -q '^[^Z]' || break; sleep 0.2; done; "
      "kill -KILL -- -$pid 2>/dev/null || true; fi; "
      "l={}; if grep -qF -- {} \"$l.owner\" 2>/dev/null; then rm -f -- \"$l.owner\"; fi; true",
      pid, mine, shell_quote(lock_file(v, host)), mine);
}

// Starts a lock holder on the node, or says who holds the lock (BUSY <owner line>).
std::string private_mkdir_command(const std::string& path) {
  return "( umask 077 && mkdir -p -- " + shell_quote(path) + " )";
}

std::string workdir_check_command(const std::string& path, int strict_levels) {
  std::string p = shell_quote(path);
  return "me=$(id -u)\n"
         "unsafe() { printf '" + std::string(kUnsafe) + "%s\\n' \"$1\"; exit 3; }\n"
         "walk() {\n"
         "  q=$1; strict=$2\n"
         "  while :; do\n"
         "    if [ -L \"$q\" ] || [ -e \"$q\" ]; then\n"
         "      o=$(stat -c %u -- \"$q\") || unsafe \"cannot stat $q\"\n"
         "      if [ \"$o\" != \"$me\" ] && [ \"$o\" != 0 ]; then\n"
         "        n=$(getent passwd \"$o\" | cut -d: -f1)\n"
         "        unsafe \"$q belongs to uid $o${n:+ ($n)}, not to you (uid $me) or root\"\n"
         "      fi\n"
         "      if [ ! -L \"$q\" ]; then\n"
         "        m=$(stat -c %a -- \"$q\") || unsafe \"cannot stat $q\"\n"
         "        m=$((8#$m))\n"
         "        if [ $((m & 8#022)) -ne 0 ] && { [ \"$strict\" -gt 0 ] || [ $((m & 8#1000)) -eq 0 ]; }; then\n"
         "          unsafe \"$q is writable by group or others (mode $(printf %04o \"$m\"))\"\n"
         "        fi\n"
         "      fi\n"
         "    fi\n"
         "    strict=$((strict - 1))\n"
         "    [ \"$q\" = / ] && return 0\n"
         "    q=$(dirname -- \"$q\")\n"
         "  done\n"
         "}\n"
         "walk " + p + " " + std::to_string(strict_levels) + "\n"
         // A link in the path (owned by you or root) may still lead somewhere unsafe.
         "r=$(realpath -m -- " + p + ") || unsafe \"cannot resolve \"" + p + "\n"
         "if [ \"$r\" != " + p + " ]; then walk \"$r\" " + std::to_string(strict_levels) + "; fi\n"
         // Inside an existing checkout too: its scripts are what runs, so a file or folder
         // someone else owns or may write is as dangerous as a planted checkout.
         "if [ -d \"$r\" ]; then\n"
         "  b=$(find \"$r\" -xdev ! -user \"$me\" ! -user 0 -print -quit 2>/dev/null)\n"
         "  [ -z \"$b\" ] || unsafe \"$b (inside aorta_path) belongs to uid $(stat -c %u -- \"$b\"), not to you (uid $me) or root\"\n"
         "  b=$(find \"$r\" -xdev ! -type l -perm /022 -print -quit 2>/dev/null)\n"
         "  [ -z \"$b\" ] || unsafe \"$b (inside aorta_path) is writable by group or others (mode $(stat -c %04a -- \"$b\"))\"\n"
         "fi\n";
}

Status check_workdir(NodeExec& exec) {
  const auto& v = exec.variant();
  if (v.trust_aorta_path) return ok_status();
  // In clone mode the folder the checkout is cloned into is the suite's working
  // folder too: the existing-checkout shortcut trusts whatever is found there.
  int strict = v.aorta_auto_clone ? 2 : 1;
  auto results = exec.on_hosts(workdir_check_command(v.aorta_path, strict), std::chrono::seconds(60));
  std::string errors;
  for (const auto& r : results) {
    std::string reason;
    if (!r.result.ok()) {
      reason = r.result.error().message;
    } else if (r.result->exit_code != 0) {
      auto unsafe = line_after(r.result->output, kUnsafe);
      reason = unsafe ? *unsafe
                      : fmt::format("the check failed (exit {}): {}", r.result->exit_code, r.result->output.substr(0, 500));
    } else {
      continue;
    }
    errors += (errors.empty() ? "" : "; ") + ("node " + r.host + ": " + reason);
  }
  if (errors.empty()) return ok_status();
  return Error{ErrorCode::kCommandFailed,
               "aorta_path " + v.aorta_path + " is not safe to run from: " + errors +
                   ". Whoever can write there runs their scripts as you on the node. Remove or fix it "
                   "(chown, chmod -R go-w), choose an aorta_path only you can write to, or set \"trust_aorta_path\": "
                   "true in the config to use it anyway",
               ""};
}

Status acquire_workdir_locks(NodeExec& exec, RunState& state, std::vector<std::string>& notes) {
  const auto& v = exec.variant();
  const std::string info = owner_info(state);
  // The holder outlives every stage's time limit with room to spare; teardown ends it
  // long before. It only matters when the suite was killed outright (SIGKILL, a
  // second Ctrl-C): then the lock frees itself at the latest after this, or the next
  // run from this head node takes it over at once (taken_over).
  const long lifetime = 4L * v.timeout_seconds + 3600;
  std::vector<std::string> commands;
  for (const auto& host : exec.hosts()) commands.push_back(acquire_command(v, host, info, lifetime));
  auto results = cluster::run_on_hosts(exec.transport(), exec.hosts(), commands, std::chrono::seconds(60));
  take_over_abandoned_locks(exec, results, info, lifetime, notes);
  std::string errors;
  for (const auto& r : results) {
    std::optional<std::string> pid;
    if (r.result.ok() && r.result->exit_code == 0) pid = line_after(r.result->output, kLockPid);
    if (pid && !pid->empty() && pid->find_first_not_of("0123456789") == std::string::npos && pid->size() < 10) {
      state.workdir_locks[r.host] = std::stol(*pid);
      continue;
    }
    std::string reason;
    if (!r.result.ok())
      reason = r.result.error().message;
    else if (auto failed = line_after(r.result->output, kLockFail))
      reason = "could not take the lock: " + printable(*failed) + " (are flock and setsid installed, is the disk full?)";
    else if (auto busy = line_after(r.result->output, kBusy))
      reason = "in use by another run (" + printable(*busy) +
               "). Wait for it to finish, end it, or give this run its own aorta_path";
    else
      reason = fmt::format("could not take the lock (exit {}): {}", r.result->exit_code,
                           printable(utf8_prefix(r.result->output, 500)));
    errors += (errors.empty() ? "" : "; ") + ("node " + r.host + ": aorta_path " + v.aorta_path + " " + reason);
  }
  if (errors.empty()) return ok_status();
  if (Status released = release_workdir_locks(exec, state); !released) errors += "; " + released.error().message;
  return Error{ErrorCode::kCommandFailed, errors, ""};
}

Status release_workdir_locks(NodeExec& exec, RunState& state) {
  if (state.workdir_locks.empty()) return ok_status();
  std::vector<std::string> hosts, commands;
  for (const auto& [host, pid] : state.workdir_locks) {
    hosts.push_back(host);
    commands.push_back(release_lock_command(exec.variant(), host, state, pid));
  }
  auto results = cluster::run_on_hosts(exec.transport(), hosts, commands, std::chrono::seconds(60));
  for (const auto& r : results)
    if (r.result.ok() && r.result->exit_code == 0) state.workdir_locks.erase(r.host);
  if (!cluster::all_succeeded(results))
    return Error{ErrorCode::kCommandFailed,
                 "could not release the aorta_path lock: " + cluster::describe_failures(results), ""};
  return ok_status();
}

}  // namespace aorta::job
