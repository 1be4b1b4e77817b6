#include "job/checkout_lock.h"

#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/shell_quote.h"
#include "common/utf8.h"
#include "job/lock_owner.h"
#include "job/phase.h"

namespace aorta::job {
namespace {

constexpr const char* kBusy = "BUSY ";
constexpr const char* kHolder = "HOLDER ";
constexpr const char* kHolderState = "HOLDER_STATE ";
constexpr const char* kLockPid = "CVS_AORTA_LOCK=";
constexpr const char* kJoined = "CVS_AORTA_JOINED";
constexpr const char* kLockFail = "LOCKFAIL ";
constexpr const char* kWills = "WILLS ";
constexpr const char* kNoOwnerLine = "a run that has not written its owner line";

std::string suite_dir(const config::Variant& v) { return v.aorta_path + "/" + kSuiteFolder; }
std::string lock_path(const config::Variant& v) { return suite_dir(v) + "/lock"; }

std::string safe_name(const std::string& text) {
  std::string name = text;
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  return name;
}

// will.<run>.<host>: the name of a run's last will for a host, beside the lock.
std::string will_name(const std::string& run_id, const std::string& host) {
  return "will." + safe_name(run_id) + "." + safe_name(host);
}

// "boot B, pidns N, ticks K" of pid $1 on this node: how the holder is named (a
// zombie has no ticks: it is gone, whoever reaps it).
constexpr const char* kIdentFunction =
    "ident() { printf 'boot %s, pidns %s, ticks %s' \"$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)\" "
    "\"$(readlink /proc/self/ns/pid 2>/dev/null)\" \"$(awk '{ sub(/.*\\) /, \"\"); if ($1 != \"Z\") print $20 }' /proc/$1/stat 2>/dev/null)\"; }\n";

// The holder: a process on the node that took the lock, named by the owner file, whose
// command line names the run (release_lock_command ends only such a process). It only
// tells where and when the lock was taken; the lock is the folder, and it stays when
// the holder ends (its lifetime, a reboot): only a run that proves the owner gone, or a
// person, removes it.
constexpr const char* kHolderScript = "sleep \"$3\"; exit 0";

// Takes the lock, joins it (this run's already), or says who holds it and whether its
// holder lives. `old`: the owner line of a lock being taken over (its run proved
// gone): that lock is removed first, by one node of those that share it.
std::string acquire_command(const config::Variant& v, const LockOwner& me, const std::string& old_line,
                            const std::string& old_run, long lifetime) {
  const bool takeover = !old_run.empty();
  return "umask 077\nD=" + shell_quote(suite_dir(v)) + "; L=\"$D/lock\"; info=" + shell_quote(owner_line(me)) +
         "; mine=" + shell_quote("run " + me.run_id + ",") + "; old=" + shell_quote(old_line) +
         "; gate=\"$D/takeover.\"" + shell_quote(safe_name(old_run)) + "\n"
         "mkdir -p -- \"$D\" || { echo; echo \"" + kLockFail + "cannot create $D\"; exit 1; }\n" +
         kIdentFunction +
         "find \"$D\" -maxdepth 1 -name 'takeover.*' -mmin +1 -exec rm -rf -- {} + 2>/dev/null\n"
         "for i in $(seq 1 100); do\n"
         "  if err=$(mkdir -- \"$L\" 2>&1); then\n"
         "    setsid nohup bash -c " + shell_quote(kHolderScript) + " _ \"$L\" \"$info\" " +
         std::to_string(lifetime) + " > /dev/null 2>&1 < /dev/null &\n"
         "    pid=$!\n"
         "    if printf '%s\\nlock holder pid %s on node %s, %s\\n' \"$info\" \"$pid\" \"$(hostname)\" \"$(ident \"$pid\")\" "
         "> \"$L/owner.tmp\" && mv -f -- \"$L/owner.tmp\" \"$L/owner\"; then\n"
         "      " + (takeover ? "rm -rf -- \"$gate\"; " : "") + "echo " + kLockPid + "$pid; exit 0\n"
         "    fi\n"
         "    kill -TERM -- -\"$pid\" 2>/dev/null; rm -rf -- \"$L\"\n"
         "    echo; echo \"" + kLockFail + "could not write the lock's owner file in $D\"; exit 1\n"
         "  fi\n"
         "  [ -d \"$L\" ] || { echo; echo \"" + kLockFail + "cannot create $L: $err\"; exit 1; }\n"
         "  o=$(head -n1 -- \"$L/owner\" 2>/dev/null)\n"
         "  case \"$o\" in \"$mine\"*) echo " + kJoined + "; exit 0;; esac\n" +
         (takeover ? "  if [ \"$o\" = \"$old\" ] && mkdir -- \"$gate\" 2>/dev/null; then\n"
                     "    [ \"$(head -n1 -- \"$L/owner\" 2>/dev/null)\" = \"$old\" ] && rm -rf -- \"$L\"; continue\n"
                     "  fi\n"
                     "  [ \"$o\" = \"$old\" ] || "
                   : "  ") +
         "[ -z \"$o\" ] || break\n"
         "  sleep 0.1\n"
         "done\n"
         "h=$(sed -n 2p -- \"$L/owner\" 2>/dev/null)\n"
         "echo; echo \"" + kBusy + "${o:-" + kNoOwnerLine + "}\"; echo \"" + kHolder + "$h\"\n"
         // Is the holder alive? On its own node the kernel says; elsewhere nobody can.
         "hp=$(printf %s \"$h\" | sed -n 's/^lock holder pid \\([0-9]*\\) on node .*/\\1/p')\n"
         "here=$(ident \"${hp:-0}\"); kernel=${here%, ticks*}\n"
         "if [ -n \"$hp\" ] && [ -n \"${here##*, ticks }\" ] && [ \"${h##*, boot }\" = \"${here#boot }\" ]; then s=live\n"
         "elif [ -n \"$hp\" ] && case \"$h\" in *\", $kernel, ticks \"*) true;; *) false;; esac; then s=gone\n"
         "else s=elsewhere; fi\n"
         "echo \"" + kHolderState + "$s\"\n"
         "exit 75\n";
}

// Ends what the dead run `old_run` started on `host`: first, when that run left a will
// for a node outside this run (`ours`: this run's hosts), it prints them and ends
// nothing (exit 3): that node may still train for it. Otherwise it runs the host's
// will, or without one ends the holder, and removes the dead run's lock.
std::string end_dead_run_command(const config::Variant& v, const std::string& host, const std::string& old_run,
                                 long holder, const std::vector<std::string>& ours) {
  RunState old;
  old.run_id = old_run;
  std::string known;
  for (const auto& h : ours) known += " " + shell_quote(will_name(old_run, h));
  return "foreign=; for f in " + shell_quote(suite_dir(v)) + "/will." + shell_quote(safe_name(old_run)) +
         ".*; do n=${f##*/}; [ -e \"$f\" ] || continue; case \"$n\" in *.tmp) continue;; esac; mine=; "
         "for k in" + known + "; do [ \"$n\" = \"$k\" ] && mine=1; done; [ -n \"$mine\" ] || foreign=\"$foreign $n\"; done\n"
         "if [ -n \"$foreign\" ]; then echo \"" + kWills + "${foreign# }\"; exit 3; fi\n"
         "w=" + shell_quote(last_will_file(v, old_run, host)) +
         "; if [ -f \"$w\" ] && [ ! -L \"$w\" ]; then bash -- \"$w\" > /dev/null 2>&1; fi; rm -f -- \"$w.tmp\"\n{ " +
         release_lock_command(v, host, old, holder) + "; }\n";
}

struct Busy {
  size_t index;
  std::string owner_text;
  std::optional<LockOwner> owner;
  long holder_pid = 0;
};

std::optional<Busy> read_busy(size_t index, const cluster::HostResult& r) {
  if (!r.result.ok() || r.result->exit_code != 75) return std::nullopt;
  auto busy = marked_line(r.result->output, kBusy);
  if (!busy) return std::nullopt;
  Busy b{index, *busy, parse_owner_line(*busy), 0};
  std::sscanf(marked_line(r.result->output, kHolder).value_or("").c_str(), "lock holder pid %ld on node",
              &b.holder_pid);
  return b;
}

// Why the lock `b` may be taken over, or nothing when its owner may be alive: only its
// suite's own boot, pid namespace and start ticks can say it is gone (a holder that
// ended says nothing of the suite).
std::optional<std::string> takeover_reason(const Busy& b) {
  if (b.owner && gone_from_here(b.owner->process))
    return fmt::format("its suite (pid {} on this head node) is no longer running", b.owner->process.pid);
  return std::nullopt;
}

std::string describe_failure(const cluster::HostResult& r, const config::Variant& v) {
  std::string reason;
  if (!r.result.ok())
    reason = r.result.error().message;
  else if (auto failed = marked_line(r.result->output, kLockFail))
    reason = "could not take the lock: " + printable(*failed) + " (is the disk full?)";
  else if (auto busy = marked_line(r.result->output, kBusy))
    reason = "in use by another run (" + printable(*busy) + "; " +
             printable(marked_line(r.result->output, kHolder).value_or("")) + ")" +
             (marked_line(r.result->output, kHolderState).value_or("") == "gone" ? ", whose lock holder has ended" : "") +
             ". Wait for it to finish, end it, or give this run its own aorta_path. Only a run on the owner's head "
             "node can prove it gone; if it is, end what it left (bash " + suite_dir(v) +
             "/will.<run>.<node> on each node) and remove " + lock_path(v);
  else
    reason = fmt::format("could not take the lock (exit {}): {}", r.result->exit_code,
                         printable(utf8_prefix(r.result->output, 500)));
  return "node " + r.host + ": aorta_path " + v.aorta_path + " " + reason;
}

}  // namespace

bool is_lock_folder(const std::string& relative) {
  const std::string suite = std::string(kSuiteFolder) + "/";
  return relative == suite + "lock" || relative.starts_with(suite + "takeover.");
}

std::string last_will_file(const config::Variant& v, const std::string& run_id, const std::string& host) {
  return suite_dir(v) + "/" + will_name(run_id, host);
}

std::string release_lock_command(const config::Variant& v, const std::string& host, const RunState& state, long pid) {
  std::string mine = shell_quote("run " + state.run_id + ",");
  // Only a process whose command line names this run is ended: the pid may have been
  // reused since, and the lock may already belong to a later run.
  return fmt::format(
      "pid={}; if [ \"$pid\" -gt 1 ] && tr '\\0' ' ' < /proc/$pid/cmdline 2>/dev/null | grep -qF -- {}; then "
      "kill -TERM -- -$pid 2>/dev/null || true; "
      // Zombies count as gone: an init that reaps slowly must not hold up teardown.
      "for i in $(seq 1 25); do ps -o stat= -g $pid 2>/dev/null | grep -q '^[^Z]' || break; sleep 0.2; done; "
      "kill -KILL -- -$pid 2>/dev/null || true; fi; "
      "l={}; case \"$(head -n1 -- \"$l/owner\" 2>/dev/null)\" in {}*) rm -rf -- \"$l\";; esac; rm -f -- {}; true",
      pid, mine, shell_quote(lock_path(v)), mine, shell_quote(last_will_file(v, state.run_id, host)));
}

namespace {

// Runs the dead runs' wills on the nodes whose lock may be taken over, and retakes it
// there. A will left for a node outside this run (shared storage) keeps the lock and
// ends nothing: that node may still train for the dead run. Refusals go to `errors`.
void take_over(NodeExec& exec, const LockOwner& me, long lifetime, const std::vector<Busy>& gone,
               std::vector<cluster::HostResult>& results, std::vector<std::string>& notes,
               std::map<size_t, std::string>& errors) {
  const auto& v = exec.variant();
  std::vector<std::string> hosts, commands;
  for (const auto& b : gone) {
    hosts.push_back(results[b.index].host);
    commands.push_back(end_dead_run_command(v, hosts.back(), b.owner->run_id, b.holder_pid, exec.hosts()));
  }
  auto ended = cluster::run_on_hosts(exec.transport(), hosts, commands, std::chrono::seconds(120));
  std::vector<std::string> again_hosts, again_commands, said;
  std::vector<size_t> which;
  for (size_t k = 0; k < gone.size(); ++k) {
    const Busy& b = gone[k];
    const std::string& old_run = b.owner->run_id;
    const auto& r = ended[k].result;
    if (r.ok() && r->exit_code == 3) {
      errors[b.index] = fmt::format("node {}: aorta_path {} is held by run {}, which is gone from here but may "
                                    "still train on nodes outside this run ({} in {}); nothing was ended. Run there "
                                    "`bash <that file>` to end it, or wait for it",
                                    hosts[k], v.aorta_path, printable(old_run),
                                    printable(marked_line(r->output, kWills).value_or("")), suite_dir(v));
      continue;
    }
    if (!r.ok() || r->exit_code != 0) {
      errors[b.index] = "node " + hosts[k] + ": could not end what run " + printable(old_run) +
                        " left there: " + cluster::describe_failures({ended[k]});
      continue;
    }
    which.push_back(b.index);
    again_hosts.push_back(hosts[k]);
    again_commands.push_back(acquire_command(v, me, b.owner_text, old_run, lifetime));
    said.push_back(fmt::format("node {}: took over the aorta_path lock of run {}: {}; what it had started on this "
                               "node was ended first",
                               hosts[k], printable(old_run), *takeover_reason(b)));
  }
  if (!errors.empty() || again_hosts.empty()) return;
  auto again = cluster::run_on_hosts(exec.transport(), again_hosts, again_commands, std::chrono::seconds(60));
  for (size_t k = 0; k < which.size(); ++k) {
    // Said only once the lock is this run's: a retake that failed is its own error.
    if (again[k].result.ok() && again[k].result->exit_code == 0) notes.push_back(said[k]);
    results[which[k]] = std::move(again[k]);
  }
}

}  // namespace

Status acquire_workdir_locks(NodeExec& exec, RunState& state, std::vector<std::string>& notes) {
  const auto& v = exec.variant();
  const LockOwner me = this_suite(state.run_id);
  // The holder outlives every stage's time limit with room to spare; teardown ends it
  // long before. When the suite was killed outright it goes at the latest after this,
  // and the lock stays for a run that proves the suite gone (or a person).
  const long lifetime = 4L * v.timeout_seconds + 3600;
  auto results = cluster::run_on_hosts(exec.transport(), exec.hosts(),
                                       std::vector<std::string>(exec.hosts().size(), acquire_command(v, me, "", "", lifetime)),
                                       std::chrono::seconds(60));
  std::map<size_t, std::string> errors;
  std::vector<Busy> gone;
  bool refused = false;
  for (size_t i = 0; i < results.size(); ++i) {
    auto busy = read_busy(i, results[i]);
    if (busy && takeover_reason(*busy))
      gone.push_back(*busy);
    else if (!results[i].result.ok() || results[i].result->exit_code != 0)
      refused = true;
  }
  // A lock is taken over only when this run can run: never for a run refused anyway.
  if (!refused && !gone.empty()) take_over(exec, me, lifetime, gone, results, notes, errors);
  std::vector<std::string> failures;
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    if (r.result.ok() && r.result->exit_code == 0) {
      auto pid = marked_line(r.result->output, kLockPid);
      if (pid && !pid->empty() && pid->find_first_not_of("0123456789") == std::string::npos && pid->size() < 10) {
        state.workdir_locks[r.host] = std::stol(*pid);
        continue;
      }
      if (r.result->output.find(kJoined) != std::string::npos) {
        state.workdir_locks[r.host] = 0;  // another node of this run holds it
        continue;
      }
    }
    failures.push_back(errors.count(i) ? errors[i] : describe_failure(r, v));
  }
  if (failures.empty()) return ok_status();
  std::string message = fmt::format("{}", fmt::join(failures, "; "));
  if (Status released = release_workdir_locks(exec, state); !released) message += "; " + released.error().message;
  return Error{ErrorCode::kCommandFailed, message, ""};
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
