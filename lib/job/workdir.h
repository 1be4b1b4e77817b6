// The node's working folder (aorta_path and the folder it is cloned into): private
// to the invoking user, and used by one run at a time (issue 14). Everything the
// suite runs comes from this folder, so whoever can write to it runs code as the
// suite's user on the node, root included.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "job/node_exec.h"
#include "job/run_state.h"

namespace aorta::job {

// A bash command that creates `path` as needed with mode 0700 (umask 077).
std::string private_mkdir_command(const std::string& path);

// A bash command that checks `path` (it may not exist yet) and every folder above
// it, literally and with links resolved: each must belong to the invoking user or
// root; the first `strict_levels` (the path itself, and in clone mode the folder it
// is cloned into) must not be writable by group or others, folders above them only
// when sticky (/tmp). On a violation it prints "UNSAFE <reason>" and exits 3.
std::string workdir_check_command(const std::string& path, int strict_levels);

// Runs the check on every node; the error names each node and the folder at fault,
// and says how to fix it or opt out (trust_aorta_path).
Status check_workdir(NodeExec& exec);

// Takes the run lock of aorta_path on every node: a detached `flock` holder on
// <aorta_path>/.cvs-aorta/lock.<node>, whose owner line names this run (run id,
// host, pid, start time). A node where another run holds it is refused with that
// line, unless that run's suite ran on this head node and is gone: then its holder is
// ended and the lock taken over, with a line in `notes`. On a partial failure the
// locks taken are released again.
Status acquire_workdir_locks(NodeExec& exec, RunState& state, std::vector<std::string>& notes);

// Ends this run's lock holders (only processes whose command line names this run).
Status release_workdir_locks(NodeExec& exec, RunState& state);
// The command that ends holder `pid` of host's lock, if it is still this run's.
std::string release_lock_command(const config::Variant& v, const std::string& host, const RunState& state, long pid);

}  // namespace aorta::job
