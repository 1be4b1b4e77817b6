// What more than one stage asks of the nodes: that a command succeeded everywhere,
// that Aorta's entry points are where the config says, and each node's last will.
#pragma once

#include <string>
#include <vector>

#include "cluster/transport.h"
#include "config/variant.h"
#include "stages/stage.h"

namespace aorta::stages {

// Adds "Aorta command failed on [what]: ..." to out unless every node succeeded.
void require_all(const std::vector<cluster::HostResult>& results, const std::string& what, StageResult& out);

// Gives every node its last will for what the run has started so far (a note in
// out's log when a node cannot take it): what the node's agent runs if rank 0 dies.
void keep_last_wills(StageContext& ctx, StageResult& out);

// The entry points a node must have for this config (reference §1.5.1).
std::vector<std::string> required_entry_points(const config::Variant& v, size_t nodes);

// "test -f <root>/<e1> && test -f <root>/<e2> ...", each path quoted.
std::string entry_check(const std::string& root, const std::vector<std::string>& entries);

}  // namespace aorta::stages
