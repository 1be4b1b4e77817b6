// Kernel-log (dmesg) scan for the benchmark window (reference §1.7): GPU resets,
// crashes, page faults, driver, hardware and network errors seen while it ran.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "config/kernel_log_rules.h"
#include "job/node_exec.h"
#include "job/run_state.h"

namespace aorta::job {

struct KernelLogMatch {
  std::string host;
  std::string category;  // node-scraper's (SW_DRIVER, RAS, ...) or the legacy one (gpu_reset, crash, ...)
  std::string line;      // the whole line where the event's first match starts
  bool warn_only = false;  // degraded-state notices: logged, not failed
  std::string message;     // the pattern's name: "I/O Page Fault", "Unknown dmesg error", ...
  std::string content;     // what matched (node-scraper's match_content), lines joined by '\n'
  int count = 1;           // matches with the same content in the window, collapsed into this event
  // When it was seen (the ISO time of its line): the first, then each repeat more than the
  // collapse interval from every time listed; the first and last few kept (node-scraper's).
  std::vector<std::string> timestamps;
};

// What the scan adds to node-scraper's table; CVS runs both (the default).
struct KernelEventRules {
  bool legacy_extensions = true;  // CVS adds its legacy categories to node-scraper's table
  bool unknown_errors = true;     // node-scraper's check_unknown_dmesg_errors (its default)
  const config::KernelLogRules* config = nullptr;  // the variant's kernel_log block; none: its defaults
};

// The category of a kernel-log line, or nothing for a clean line.
std::optional<std::pair<std::string, bool>> classify_kernel_line(const std::string& line);

// Seconds since the epoch of a `dmesg --time-format iso` line, with or without -x's
// "kern  :err   : " prefix, or nothing.
std::optional<double> iso_line_time(const std::string& line);

// The events of `dmesg_text`'s lines whose time lies in [start, end], as CVS's default
// (node-scraper's DmesgAnalyzer) finds them: node-scraper's table, then CVS's legacy
// categories as extensions (a line an earlier pattern named is not named again), then
// every err/crit/alert/emerg kern line no pattern names ("Unknown dmesg error").
// Matches with the same content collapse into one event with a count.
std::vector<KernelLogMatch> scan_kernel_log(const std::string& host, const std::string& dmesg_text, double start,
                                            double end, KernelEventRules rules = {});

// The command that prints the kernel log with ISO times and levels (-x): dmesg as root, else sudo -n.
std::string dmesg_command();

struct KernelScan {
  std::vector<KernelLogMatch> matches;
  std::vector<std::string> failed_hosts;  // scan could not run there: coverage is incomplete
};

// Runs the scan on every host for the window, with the variant's kernel_log rules.
KernelScan scan_nodes(NodeExec& exec, double start, double end);

// How a node-scraper event fails the node: CVS's words, the pattern's name, and for
// repeats how many and when.
std::string kernel_event_text(const KernelLogMatch& m);

// CVS_DMESG_PARSER's value (nullptr or empty: unset). The original's default,
// node-scraper, is our port of its DmesgAnalyzer (kIso, kernel_events.h); legacy, cvs,
// 0, false, off and no (any case, blanks around them stripped) select the original's
// legacy scan; anything else is node-scraper's, as in CVS (never an error).
Result<KernelLogBackend> kernel_log_backend(const char* value);

// Legacy scan (kernel_log_legacy.cc), as the original ran it: the head node's
// `date +'%a %b %e %H:%M:%S'` at start and end, cut to the minute, bound an awk range
// over `dmesg -T` on every node.
inline constexpr const char* kLegacyDateCommand = "date +'%a %b %e %H:%M:%S'";
// "Wed Sep 23 12:00" from "Wed Sep 23 12:00:05", or nothing for any other text.
std::optional<std::string> legacy_minute(const std::string& date_output);
std::string legacy_dmesg_command(const std::string& start_minute, const std::string& end_minute);
// Every line of the window that matches a category, per host; a host whose scan
// failed (exit 1 with no output is grep finding no line: clean) is named.
KernelScan scan_nodes_legacy(NodeExec& exec, const std::string& start_minute, const std::string& end_minute);

}  // namespace aorta::job
