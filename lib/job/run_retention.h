// The per-run folders a run leaves on each node (<aorta_path>/.cvs-aorta/<run-id>:
// phase scripts, logs and, in torchrun mode, the traces) kept for the last
// `keep_node_runs` runs, so nightly runs do not fill the nodes' disks. Done at
// teardown, on the nodes whose lock this run holds (no other run is using them then).
#pragma once

#include <string>
#include <vector>

#include "job/node_exec.h"
#include "job/run_state.h"

namespace aorta::job {

// A bash command over `suite_dir` (<aorta_path>/.cvs-aorta): keeps this run's folder and
// the newest others (by modification time) up to `keep` in all, removes the rest. With
// `keep` 0 this run's folder goes too, but only when `collected` (every node's traces are home).
// Only folders named as run ids (32 hex digits, not links) are touched: never the lock,
// the wills or Aorta's own files. A folder is renamed before it is removed, so nodes
// sharing storage remove each once, and a removal cut short (left over for 10 minutes) is
// finished by a later run.
// Prints one line per folder: "KEPT <id>", "REMOVED <id>", "UNCOLLECTED <id>" (this run's,
// kept: its traces are not home) or "FAILED <id> <why>".
std::string retention_command(const std::string& suite_dir, const std::string& run_id, int keep, bool collected);

// What teardown says and what failed: one note per node ("node1: removed 3 earlier run
// folders ..., kept 2 ..."), and an error per node whose folders could not be removed.
struct RetentionOutcome {
  std::vector<std::string> notes;
  std::vector<std::string> errors;
};

// Runs retention_command on every node this run holds the lock of.
RetentionOutcome apply_retention(NodeExec& exec, const RunState& state);

}  // namespace aorta::job
