// What each node runs if the run is lost before its teardown (a managed run's rank 0
// killed): stop this run's training, remove its per-run container, release its
// aorta_path lock. Kept by the node's agent; other transports keep none.
#pragma once

#include <string>

#include "common/result.h"
#include "job/node_exec.h"
#include "job/run_state.h"

namespace aorta::job {

// The will of hosts()[node] for what the run has started so far.
std::string last_will_command(const NodeExec& exec, const RunState& state, size_t node);

// Gives every node its will as it stands now (called after each start: lock,
// containers, a phase). The first node that cannot take it, named.
Status update_last_wills(NodeExec& exec, const RunState& state);

}  // namespace aorta::job
