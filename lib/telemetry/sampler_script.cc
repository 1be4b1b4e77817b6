#include "telemetry/sampler_script.h"

#include <algorithm>
#include <sstream>

#include "common/shell_quote.h"
#include "telemetry/tool_commands.h"

namespace aorta::telemetry {
namespace {

// The first tool on PATH sets tool, tick and edge (fixed strings of gpu_tools()). PATH
// is first the login shell's, where the training finds its commands (the torchrun launch
// runs `bash -lc`; ROCm's profile.d adds /opt/rocm/bin there), bounded in time, then the
// sampler's own and ROCm's default folder: over SSH a plain command has neither.
std::string tool_choice() {
  std::string s = "login_path=$(timeout 10 bash -lc 'printf %s \"$PATH\"' < /dev/null 2> /dev/null)\n"
                  "PATH=\"${login_path:+$login_path:}$PATH:/opt/rocm/bin\"; export PATH\n";
  const char* word = "if";
  for (const auto& t : gpu_tools()) {
    s += std::string(word) + " command -v " + shell_quote(t.name) + " >/dev/null 2>&1; then tool=" + shell_quote(t.name) +
         "; tick=" + shell_quote(t.tick_command) + "; edge=" + shell_quote(t.edge_command) + "\n";
    word = "elif";
  }
  return s + "fi\n";
}

// One record: the tool's call bounded in time (timeout, in a process group of its own,
// so the trap ends it too) and in size (ulimit -f); a failure is an #error record, a
// record past the room it may fill is #truncated once. A body line never starts with '#'.
constexpr const char* kRecord = R"SH(record() {  # kind command limit room
  now; at=$t
  timeout -k 2 "$3" bash -c 'ulimit -f "$1" && eval "$2"' sampler "$record_kib" "$2" > "$out" 2> "$err" &
  child=$!; wait "$child"; rc=$?; child=
  said=$(head -c 300 "$err" 2>/dev/null | tr -s '\r\n\t' '   ')
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    printf '#error %s %s: %s did not answer within %ss\n' "$at" "$1" "$tool" "$3" >> "$log"; return
  fi
  if [ "$rc" -ne 0 ]; then
    printf '#error %s %s: %s exited %s: %s\n' "$at" "$1" "$tool" "$rc" "$said" >> "$log"; return
  fi
  size=$(wc -c < "$out")
  if [ $(( $(wc -c < "$log") + size + 64 )) -gt "$4" ]; then
    if [ "$1" = tick ]; then full=1; printf '#truncated %s\n' "$(wc -c < "$log")" >> "$log"
    else printf '#error %s %s: not kept, the file is at its cap\n' "$at" "$1" >> "$log"; fi
    return
  fi
  printf '#sample %s %s\n' "$at" "$1" >> "$log"
  sed 's/^#/ #/' "$out" >> "$log"
  if [ "$size" -gt 0 ] && [ -n "$(tail -c 1 "$out")" ]; then echo >> "$log"; fi
}
)SH";

// Why the sampler ends now, in reason; false while it goes on.
constexpr const char* kEnded = R"SH(ended() {
  s=${EPOCHSECONDS:-$(date +%s)}
  if [ -e "$stop" ]; then reason=stopped
  elif [ -n "$train" ] && ! kill -0 -- "-$train" 2>/dev/null; then reason="training ended"
  elif [ "$s" -ge "$end_by" ]; then reason=deadline
  else return 1; fi
}
finish() {  # reason
  now; printf '#end %s %s\n' "$t" "$1" >> "$log"; rm -f "$out" "$err"; exit 0
}
)SH";

// The loop: an edge, a tick on every interval's second while room is left, an edge.
constexpr const char* kMain = R"SH(trap '[ -n "$child" ] && kill "$child" 2>/dev/null; finish killed' TERM INT HUP
printf '#aorta-telemetry v1 host=%s tool=%s interval=%s\n' "$host" "$tool" "$interval" > "$log"
[ "$tool" != none ] || finish "no tool"
train=$(cat "$pid_file" 2>/dev/null)
case "$train" in ''|*[!0-9]*) train= ;; *) [ "$train" -gt 1 ] || train= ;; esac
end_by=$(( ${EPOCHSECONDS:-$(date +%s)} + deadline ))
record edge "$edge" "$edge_limit" "$cap"
next=0
while ! ended; do
  if [ "$s" -ge "$next" ]; then
    [ -n "$full" ] || record tick "$tick" "$tick_limit" $(( cap - reserve ))
    next=$(( s + interval ))
  fi
  sleep 0.2
done
record edge "$edge" "$edge_limit" "$cap"
finish "$reason"
)SH";

std::string number(int64_t n) { return shell_quote(std::to_string(n)); }

}  // namespace

SamplerPlan sampler_plan(const std::string& host, const std::string& work_dir, const std::string& training_pid_file,
                         int interval_seconds, int timeout_seconds) {
  SamplerPlan plan{.host = host, .work_dir = work_dir, .training_pid_file = training_pid_file};
  plan.interval_seconds = std::max(1, interval_seconds);
  plan.deadline_seconds = std::max(1, timeout_seconds) + kDeadlineMarginSeconds;
  plan.tick_limit_seconds = 2 * plan.interval_seconds + 3;
  plan.edge_limit_seconds = 2 * plan.tick_limit_seconds;
  return plan;
}

std::string sampler_script(const SamplerPlan& plan) {
  std::ostringstream s;
  s << "#!/usr/bin/env bash\n"
       "# aorta_suite's GPU telemetry sampler (issue 47): written and started by the suite beside the\n"
       "# training; it ends when asked (the stop file), when the training is gone, or at its deadline.\n"
       "export LC_ALL=C\n";
  s << "log=" << shell_quote(plan.work_dir + "/" + kSampleFile) << "\n";
  s << "stop=" << shell_quote(plan.work_dir + "/" + kStopFile) << "\n";
  s << "pid_file=" << shell_quote(plan.training_pid_file) << "\n";
  s << "host=" << shell_quote(plan.host) << "\n";
  s << "interval=" << number(plan.interval_seconds) << " deadline=" << number(plan.deadline_seconds)
    << " tick_limit=" << number(plan.tick_limit_seconds) << " edge_limit=" << number(plan.edge_limit_seconds) << "\n";
  s << "cap=" << number(plan.cap_bytes) << " reserve=" << number(std::min(kEndReserveBytes, plan.cap_bytes / 2))
    << " record_kib=" << number(kRecordCapKiB) << "\n";
  // The numbers are the suite's own, checked here again: nothing else reaches $(( )).
  s << "for n in \"$interval\" \"$deadline\" \"$tick_limit\" \"$edge_limit\" \"$cap\" \"$reserve\" \"$record_kib\"; do\n"
       "  case \"$n\" in ''|*[!0-9]*) echo \"sampler: not a number: $n\" >&2; exit 2 ;; esac\n"
       "done\n"
       "[ \"$interval\" -ge 1 ] || interval=1\n"
       "out=\"$log.out\" err=\"$log.err\" child= full= reason= t= s=\n"
       "now() { t=${EPOCHREALTIME:-$(date +%s)}; }\n"
       "tool=none tick= edge=\n";
  s << tool_choice() << kRecord << kEnded << kMain;
  return s.str();
}

std::string header_tool(const std::string& header_line) {
  if (!header_line.starts_with("#aorta-telemetry ")) return "";
  const size_t at = header_line.find(" tool=");
  if (at == std::string::npos) return "";
  const size_t begin = at + 6;
  return header_line.substr(begin, header_line.find_first_of(" \r\n", begin) - begin);
}

std::string no_tool_line(const std::vector<std::string>& hosts) {
  constexpr size_t kNamed = 8;
  std::string tools, named;
  for (const auto& t : gpu_tools()) tools += (tools.empty() ? "" : ", ") + t.name;
  for (size_t i = 0; i < hosts.size() && i < kNamed; ++i) named += (i ? ", " : "") + hosts[i];
  if (hosts.size() > kNamed) named += " and " + std::to_string(hosts.size() - kNamed) + " more";
  const std::string who = hosts.size() == 1 ? "node " + named : std::to_string(hosts.size()) + " nodes (" + named + ")";
  return who + ": no GPU telemetry tool (" + tools + ") on PATH; the run goes on without it";
}

}  // namespace aorta::telemetry
