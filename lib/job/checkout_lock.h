// One checkout, one run (issue 42): the run lock belongs to aorta_path, not to a node.
// It is a folder, <aorta_path>/.cvs-aorta/lock, made with mkdir, which is atomic on
// every shared file system (flock is not: Lustre's localflock, NFS local_lock). Its
// owner file names the run's suite (lock_owner.h) and a holder process on the node
// that made it. The nodes of one run share the lock; any other run, from any node or
// head, is refused naming the owner.
//
// A lock is taken over only when its suite is proved gone: it ran in this head's boot
// and pid namespace and is no longer there (a holder that ended proves nothing: the
// lock stays, for a person to remove). Before the lock is taken, each node runs the
// dead run's last will (job/last_will.h: its training, its per-run container, its
// holder), which every run keeps beside the lock, so no process of the dead run is
// left to write traces into the new run's; a will left for a node outside this run
// keeps the lock and ends nothing.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "job/node_exec.h"
#include "job/run_state.h"

namespace aorta::job {

// Takes the lock on every node; a partial failure releases what was taken. Each
// takeover is a line in `notes`.
Status acquire_workdir_locks(NodeExec& exec, RunState& state, std::vector<std::string>& notes);

// Ends this run's holders and removes its lock and last wills (only what names this run).
Status release_workdir_locks(NodeExec& exec, RunState& state);

// The command that ends holder `pid` (0: none on this node) of this run on `host`,
// removes the lock if it is still this run's, and the host's last will file.
std::string release_lock_command(const config::Variant& v, const std::string& host, const RunState& state, long pid);

// Whether `relative` (to aorta_path) is the lock's own folder or a takeover's gate:
// nothing a collection should name.
bool is_lock_folder(const std::string& relative);

// <aorta_path>/.cvs-aorta/will.<run>.<host>: what ends the run's work on the host.
std::string last_will_file(const config::Variant& v, const std::string& run_id, const std::string& host);

}  // namespace aorta::job
