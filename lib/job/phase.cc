#include "job/phase.h"

#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "common/interrupt.h"
#include "redact/redact.h"
#include "common/shell_quote.h"
#include "common/utf8.h"
#include "job/node_contact.h"

namespace aorta::job {
namespace {

std::string file_in(const config::Variant& v, const std::string& run_id, size_t i, const std::string& name) {
  return node_work_dir(v, run_id, i) + "/" + name;
}

constexpr const char* kPidMarker = "CVS_AORTA_PID=";
// A log tail's line in the stage log: enough for a Python traceback's line.
constexpr size_t kTailLineBytes = 2000;
// Printed by the poll when the phase log is gone: the log exists from the start, so
// only a deleted or moved aorta_path (or .cvs-aorta) removes it.
constexpr const char* kLogGone = "CVS_AORTA_LOG_GONE";

}  // namespace

std::string run_output_dir(const config::Variant& v, const std::string& run_id) {
  return v.node_repo_path() + "/" + kSuiteFolder + "/" + run_id;
}

std::string node_work_dir(const config::Variant& v, const std::string& run_id, size_t node_index) {
  return run_output_dir(v, run_id) + "/node_" + std::to_string(node_index);
}

std::string detached_start_command(const std::string& script, const std::string& log, const std::string& pid_file) {
  // setsid makes the script a process-group leader, so stop_phase can end it and
  // everything it started with one signal to the group.
  return "nohup setsid bash " + shell_quote(script) + " > " + shell_quote(log) + " 2>&1 < /dev/null & echo $! > " +
         shell_quote(pid_file) + " && echo " + kPidMarker + "$!";
}

void remember_phase_pids(RunState& state, const std::string& label, const std::vector<HostResult>& started) {
  for (const auto& r : started) {
    if (!r.result.ok()) continue;
    size_t at = r.result->output.rfind(kPidMarker);
    if (at == std::string::npos) continue;
    std::string digits = r.result->output.substr(at + std::string(kPidMarker).size());
    digits = digits.substr(0, digits.find_first_not_of("0123456789"));
    if (!digits.empty() && digits.size() < 10) state.phase_pids[label][r.host] = std::stol(digits);
  }
}

Status start_phase(NodeExec& exec, RunState& state, const std::string& label,
                   const std::vector<std::string>& commands, const Rendezvous& rdzv, const config::Variant* variant) {
  const auto& v = exec.variant();
  const auto& script_variant = variant ? *variant : v;
  if (commands.size() != exec.hosts().size())
    return Error{ErrorCode::kCommandFailed,
                 fmt::format("{}: {} launch command(s) for {} node(s); nothing was started", label, commands.size(),
                             exec.hosts().size()),
                 ""};
  std::vector<std::string> writes, starts;
  for (size_t i = 0; i < exec.hosts().size(); ++i) {
    std::string dir = shell_quote(node_work_dir(v, state.run_id, i));
    std::string script = file_in(v, state.run_id, i, label + ".sh");
    // umask 077: the script exports every env value (tokens too), so only the run's
    // user may read it; its folders are 0700, which keeps the log and the outputs
    // written there private too.
    std::string write = "umask 077 && mkdir -p " + dir + " && chmod 700 " + dir + " \"$(dirname " + dir +
                        ")\" && printf %s " +
                        shell_quote(phase_script(script_variant, i, rdzv, commands[i],
                                                 file_in(v, state.run_id, i, label + ".exit"))) +
                        " > " + shell_quote(script) + " && chmod 600 " + shell_quote(script);
    // In a container the files are root's: they go to the node's user, who
    // downloads the logs and traces before teardown restores the rest.
    auto owner = state.host_owner.find(exec.hosts()[i]);
    if (v.container.runtime == config::RuntimeKind::kDocker && owner != state.host_owner.end() &&
        owner->second.find_first_not_of("0123456789:") == std::string::npos)
      write += " && chown " + owner->second + " " + dir + " \"$(dirname " + dir + ")\" " + shell_quote(script);
    writes.push_back(write);
    starts.push_back(detached_start_command(script, file_in(v, state.run_id, i, label + ".log"),
                                            file_in(v, state.run_id, i, label + ".pid")));
  }
  auto written = exec.in_containers_each(writes, std::chrono::seconds(60));
  if (!cluster::all_succeeded(written))
    return Error{ErrorCode::kCommandFailed, "could not write the " + label + " script: " + cluster::describe_failures(written), ""};
  state.launched_phases.push_back(label);
  auto started = exec.in_containers_each(starts, std::chrono::seconds(60));
  remember_phase_pids(state, label, started);
  if (!cluster::all_succeeded(started))
    return Error{ErrorCode::kCommandFailed, "could not start " + label + ": " + cluster::describe_failures(started), ""};
  return ok_status();
}

namespace {

// Splits a poll's output into node 0's new log bytes and the exit-marker read after
// them; rfind, since the log itself may print anything, the marker too.
constexpr const char* kOutputEnd = "\nCVS_AORTA_SUITE_OUTPUT_END\n";

// Node 0's phase log, passed on line by line as it grows: each poll reads only the
// bytes after the last (at most 1 MiB), and a line longer than kMaxLine (a progress
// bar's \r updates on one line) is passed on cut, once, with the rest of it dropped.
struct HeadStream {
  static constexpr size_t kMaxLine = 16384;
  size_t offset = 0;    // bytes of the log passed on so far
  std::string partial;  // a line not yet ended
  bool cutting = false;  // inside a line already passed on cut
  size_t last_read = 0;  // bytes the last poll brought: a full 1 MiB says more is waiting

  // log is shell-quoted already.
  std::string read_command(const std::string& log) const {
    return fmt::format("tail -c +{} {} | head -c 1048576; printf '\\nCVS_AORTA_SUITE_OUTPUT_END\\n'; ", offset + 1, log);
  }
  // Passes on the complete lines of the new bytes; returns the rest of the output.
  std::string take(const std::string& output, const ProgressFn& sink) {
    size_t end = output.rfind(kOutputEnd);
    if (end == std::string::npos) return output;
    offset += end;
    last_read = end;
    partial += output.substr(0, end);
    for (size_t nl; (nl = partial.find('\n')) != std::string::npos; partial.erase(0, nl + 1)) {
      if (!cutting) sink(shown(partial.substr(0, nl)));
      cutting = false;
    }
    if (partial.size() > kMaxLine) {
      if (!cutting) sink(shown(partial) + " [line cut: longer than " + std::to_string(kMaxLine) + " bytes]");
      cutting = true;
      partial.clear();
    }
    return output.substr(end + std::string(kOutputEnd).size());
  }
  // What a terminal and a log may show: no control character passes through.
  static std::string shown(const std::string& line) { return printable(utf8_prefix(line, kMaxLine)); }
};

// One poll's command per node: the phase's exit code once the wrapper has written it,
// after node 0's new log bytes when head is given; kLogGone when the log is gone.
std::vector<std::string> poll_commands(const config::Variant& v, const std::string& run_id, size_t nodes,
                                       const std::string& label, const HeadStream* head) {
  std::vector<std::string> reads;
  for (size_t i = 0; i < nodes; ++i) {
    std::string log = shell_quote(file_in(v, run_id, i, label + ".log"));
    // The exit file, not the log: a few bytes a poll however long the log grows, and
    // only the wrapper writes it.
    std::string exit_file = shell_quote(file_in(v, run_id, i, label + ".exit"));
    // The exit file is read before the log: the wrapper writes its marker to the log
    // first, so a finished node's last read holds the whole log.
    reads.push_back("if [ -f " + log + " ]; then cvs_aorta_exit=$(cat " + exit_file + " 2>/dev/null); " +
                    (i == 0 && head ? head->read_command(log) : "") + "printf '%s\\n' \"$cvs_aorta_exit\"; else echo " +
                    kLogGone + "; fi");
  }
  return reads;
}

// ok when every node's phase exited 0, else the nodes and codes that did not.
Status all_exited_zero(const std::vector<std::string>& hosts, const std::vector<int>& codes) {
  std::string failed;
  for (size_t i = 0; i < hosts.size(); ++i)
    if (codes[i] != 0) failed += (failed.empty() ? "" : ", ") + hosts[i] + ": " + std::to_string(codes[i]);
  if (!failed.empty())
    return Error{ErrorCode::kCommandFailed, "Aorta command failed on nodes: {" + failed + "}", ""};
  return ok_status();
}

// What one wait knows of each node between polls: its exit code (-1 while it runs),
// whether a failure was said, when it last answered; and what the wait last said.
class PhaseWait {
 public:
  PhaseWait(NodeExec& exec, const RunState& state, const std::string& label, const ProgressFn& progress)
      : begin(std::chrono::steady_clock::now()),
        contact(exec.hosts(), label, exec.transport().node_answerer(), begin),
        exec_(exec), state_(state), label_(label), progress_(progress),
        codes_(exec.hosts().size(), -1), warned_(exec.hosts().size(), false) {}

  // Every node's answer to one poll taken in: the nodes done, or the error that ends the
  // wait (what no later poll can mend, a log deleted under the run).
  Result<size_t> take(const std::vector<HostResult>& results) {
    const auto polled = std::chrono::steady_clock::now();
    size_t done = 0;
    for (size_t i = 0; i < codes_.size(); ++i) {
      if (auto error = take(i, results[i].result, polled)) return *error;
      if (codes_[i] >= 0) ++done;
    }
    return done;
  }

  // The nodes done and the time left, when that changed or every 30 s; each silent node.
  void say_progress(size_t done, std::chrono::steady_clock::time_point now, std::chrono::seconds timeout) {
    const double elapsed = std::chrono::duration<double>(now - begin).count();
    if (done != last_done_ || now - last_report_ >= std::chrono::seconds(30)) {
      progress_(fmt::format("[{}] {}/{} nodes done, elapsed {}, {} left before the {}s timeout", label_, done,
                            codes_.size(), clock_text(elapsed), clock_text(timeout.count() - elapsed), timeout.count()));
      last_done_ = done;
      last_report_ = now;
    }
    for (const auto& line : contact.lines(now, begin + timeout, timeout)) progress_(line);
  }

  Status exit_codes() const { return all_exited_zero(exec_.hosts(), codes_); }

  const std::chrono::steady_clock::time_point begin;
  NodeContact contact;

 private:
  // Node i's answer. A node that does not answer is polled on until the timeout, as in
  // CVS (an sshd restart, a blip); only what no later poll can mend ends the wait here.
  // A node that has finished is never silent: only the running ones are waited for.
  std::optional<Error> take(size_t i, const Result<cluster::CommandResult>& r,
                            std::chrono::steady_clock::time_point polled) {
    const bool running = codes_[i] < 0;
    if (!r.ok() && running && ends_the_wait(exec_.transport(), r.error())) return contact.final_error(i, r.error());
    if (!r.ok() && running) contact.silent(i, r.error().message);
    else if (auto back = contact.answered(i, polled)) progress_(*back);
    if (r.ok() && r->exit_code == 0) {
      if (running && r->output.find(kLogGone) != std::string::npos) return log_gone(i);
      codes_[i] = exit_code_from_status(r->output);
    }
    if (codes_[i] > 0 && !warned_[i]) {
      warned_[i] = true;
      progress_(fmt::format("[{}] {} exited with {}; waiting for the remaining nodes", label_, exec_.hosts()[i],
                            codes_[i]));
    }
    return std::nullopt;
  }

  Error log_gone(size_t i) const {
    const auto& v = exec_.variant();
    const std::string& host = exec_.hosts()[i];
    return Error{ErrorCode::kCommandFailed,
                 fmt::format("the {} log on node {} is gone ({}): aorta_path {} was deleted or moved during the run; "
                             "the {} processes are stopped",
                             label_, host, exec_.host_path(file_in(v, state_.run_id, i, label_ + ".log")), v.aorta_path,
                             label_),
                 host};
  }

  NodeExec& exec_;
  const RunState& state_;
  const std::string& label_;
  const ProgressFn& progress_;
  std::vector<int> codes_;
  std::vector<bool> warned_;
  size_t last_done_ = static_cast<size_t>(-1);
  std::chrono::steady_clock::time_point last_report_ = begin - std::chrono::hours(1);
};

}  // namespace

Status wait_for_phase(NodeExec& exec, RunState& state, const std::string& label, std::chrono::seconds timeout,
                      const ProgressFn& progress, const ProgressFn& head_output) {
  HeadStream head;
  const auto& hosts = exec.hosts();
  PhaseWait wait(exec, state, label, progress);
  auto interval = std::chrono::seconds(1);
  int drains = 0;
  for (;;) {
    auto results = exec.in_containers_each(
        poll_commands(exec.variant(), state.run_id, hosts.size(), label, head_output ? &head : nullptr),
        std::chrono::seconds(60));
    if (head_output && !results.empty() && results[0].result.ok())
      results[0].result->output = head.take(results[0].result->output, head_output);
    auto done = wait.take(results);
    if (!done) return done.error();
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - wait.begin).count();
    if (*done == hosts.size()) {
      // The rest of node 0's log, 1 MiB a read, before the wait ends (at most 256 MiB).
      if (head_output && head.last_read >= 1048576 && ++drains <= 256) continue;
      progress(fmt::format("[{}] {}/{} nodes done, elapsed {}", label, *done, hosts.size(), clock_text(elapsed)));
      break;
    }
    wait.say_progress(*done, now, timeout);
    if (elapsed >= timeout.count())
      return Error{ErrorCode::kTimeout,
                   fmt::format("Aorta did not complete within {}s{}", timeout.count(), wait.contact.at_timeout(now)),
                   wait.contact.first_silent()};
    auto pause = std::min<std::chrono::seconds>(
        interval, std::chrono::seconds(std::max<long>(1, timeout.count() - static_cast<long>(elapsed))));
    if (!sleep_unless_interrupted(pause))
      return Error{ErrorCode::kCommandFailed,
                   fmt::format("interrupted by {} after {} with {}/{} nodes done; the {} processes are stopped and "
                               "teardown still runs", interrupt_name(), clock_text(elapsed), *done, hosts.size(), label),
                   ""};
    interval = std::min(interval * 2, std::chrono::seconds(10));
  }
  if (head_output && !head.partial.empty() && !head.cutting) head_output(HeadStream::shown(head.partial));  // no newline
  return wait.exit_codes();
}

std::vector<std::string> phase_log_tails(NodeExec& exec, const RunState& state, const std::string& label, int lines) {
  const auto& v = exec.variant();
  std::vector<std::string> reads;
  for (size_t i = 0; i < exec.hosts().size(); ++i)
    // The last 64 KiB at most: a last line of 100 MiB must not reach the reports whole.
    reads.push_back(fmt::format("tail -c 65536 {} | tail -n {}", shell_quote(file_in(v, state.run_id, i, label + ".log")),
                                lines));
  auto results = exec.in_containers_each(reads, std::chrono::seconds(60));
  std::vector<std::string> notes;
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i].result;
    if (!r.ok() || r->exit_code != 0) {
      notes.push_back(fmt::format("{} {}.log could not be read: {}", exec.hosts()[i], label,
                                  r.ok() ? r->output : r.error().message));
      continue;
    }
    notes.push_back(fmt::format("{} {}.log, last lines:", exec.hosts()[i], label));
    // Redacted whole, before it is cut into notes: a private key's or a YAML block's
    // lines are known as such only from the lines before them.
    std::istringstream text(redact::redact_text(r->output));
    for (std::string line; std::getline(text, line);)
      notes.push_back("  " + printable(utf8_prefix(line, kTailLineBytes)) +
                      (line.size() > kTailLineBytes ? fmt::format(" [line cut: {} bytes]", line.size()) : ""));
  }
  return notes;
}

std::string stop_phase_command(const NodeExec& exec, const RunState& state, size_t node, const std::string& label) {
  std::string pid_file = shell_quote(file_in(exec.variant(), state.run_id, node, label + ".pid"));
  std::string fallback;
  if (auto known = state.phase_pids.find(label); known != state.phase_pids.end())
    if (auto remembered = known->second.find(exec.hosts()[node]); remembered != known->second.end())
      fallback = std::to_string(remembered->second);  // the pid file goes with a deleted aorta_path; this does not
  // pids 0, 1 and non-numbers must never reach kill: -0 and -1 signal far more
  // than the phase.
  return "f=" + pid_file + "; pid=" + fallback + "; if [ -f \"$f\" ]; then pid=$(cat \"$f\"); fi; "
         "case \"$pid\" in ''|*[!0-9]*) ;; *) "
         "if [ \"$pid\" -gt 1 ]; then kill -TERM -- -\"$pid\" 2>/dev/null || true; "
         "for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 -- -\"$pid\" 2>/dev/null || break; sleep 0.2; done; "
         "kill -KILL -- -\"$pid\" 2>/dev/null || true; fi;; esac; rm -f \"$f\"";
}

Status stop_phase(NodeExec& exec, RunState& state, const std::string& label) {
  std::vector<std::string> stops;
  for (size_t i = 0; i < exec.hosts().size(); ++i) stops.push_back(stop_phase_command(exec, state, i, label));
  auto results = exec.in_containers_each(stops, std::chrono::seconds(60));
  for (const auto& r : results)
    if (r.result.ok() && r.result->exit_code == 0) state.phase_pids[label].erase(r.host);
  if (!cluster::all_succeeded(results))
    return Error{ErrorCode::kCommandFailed, "could not stop " + label + ": " + cluster::describe_failures(results), ""};
  return ok_status();
}

}  // namespace aorta::job
