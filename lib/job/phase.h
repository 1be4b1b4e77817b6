// Long-running phases (RCCL build, benchmark) on every node: written as scripts,
// started detached in their own process group, polled for the exit marker, stopped
// by group (reference §1.6).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "common/result.h"
#include "job/launch.h"
#include "job/node_exec.h"
#include "job/run_state.h"

namespace aorta::job {

using ProgressFn = std::function<void(const std::string&)>;

// The suite's own folder in the repository: its locks and each run's folder.
inline constexpr const char* kSuiteFolder = ".cvs-aorta";

// <repo>/.cvs-aorta/<run-id>/node_<i> as seen on the node.
std::string node_work_dir(const config::Variant& v, const std::string& run_id, size_t node_index);

// <repo>/.cvs-aorta/<run-id>: the run's own folder on the node; the workload writes
// to its kRunOutputName subfolder unless the config sets training.output_dir.
std::string run_output_dir(const config::Variant& v, const std::string& run_id);
inline constexpr const char* kRunOutputName = "output";

// Writes <label>.sh on every node (0600, in a 0700 folder: it carries the env
// values, tokens included) and starts it; commands[i] runs on node i, and a count
// that is not one per node is an error. `variant`: the run's own (with its output
// folder), exec.variant() when null.
Status start_phase(NodeExec& exec, RunState& state, const std::string& label,
                   const std::vector<std::string>& commands, const Rendezvous& rdzv,
                   const config::Variant* variant = nullptr);

// The command that starts `script` detached in a process group of its own (nohup
// setsid bash), its output to `log`, its pid to `pid_file` and printed for
// remember_phase_pids. Paths are quoted here.
std::string detached_start_command(const std::string& script, const std::string& log, const std::string& pid_file);
// Each node's process group printed by detached_start_command, kept under `label` for
// stop_phase and the last will.
void remember_phase_pids(RunState& state, const std::string& label, const std::vector<HostResult>& started);

// Polls until every node printed its exit marker (1 s at first, backing off to every
// 10 s) or the timeout passes. A node that does not answer is polled on until the
// timeout, said on the console while silent (job/node_contact.h); only a poll error no
// later poll can mend (ends_the_wait) fails it at once: "lost contact with node ...".
// kTimeout: "Aorta did not complete within <N>s", then each silent node and for how long;
// kCommandFailed: "Aorta command failed on nodes: {host: code, ...}", or at the
// first poll that finds a node's phase log gone (aorta_path deleted or moved).
// head_output, when set, gets node 0's <label>.log line by line as it grows (read in
// the same poll, at most 1 MiB a poll): what the original streams into <suite>.log.
Status wait_for_phase(NodeExec& exec, RunState& state, const std::string& label, std::chrono::seconds timeout,
                      const ProgressFn& progress, const ProgressFn& head_output = {});

// The last `lines` lines of each node's <label>.log, as notes for the stage's log:
// "<host> <label>.log, last lines:" then each line indented; a node whose log cannot
// be read says why. What a person reads first when a run fails.
std::vector<std::string> phase_log_tails(NodeExec& exec, const RunState& state, const std::string& label, int lines);

// TERM, a short grace period, then KILL to each node's phase process group.
Status stop_phase(NodeExec& exec, RunState& state, const std::string& label);
// The command that stops the phase on hosts()[node] (to run inside its container).
std::string stop_phase_command(const NodeExec& exec, const RunState& state, size_t node, const std::string& label);

}  // namespace aorta::job
