// Nodes that are all this machine: the local transport runs every node's command here,
// so several nodes of one checkout are nodes on shared storage.
#pragma once

#include <string>
#include <vector>

#include "config/cluster.h"

namespace aorta::testing {

inline config::Cluster local_nodes(const std::vector<std::string>& names) {
  config::Cluster c = config::local_cluster("tester");
  c.nodes.clear();
  for (const auto& n : names) c.nodes.push_back({n, "127.0.0.1", ""});
  return c;
}

}  // namespace aorta::testing
