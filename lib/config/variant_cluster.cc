#include "config/variant_cluster.h"

namespace aorta::config {

std::vector<ConfigError> check_variant_for_cluster(const Variant& v, std::size_t node_count) {
  ConfigErrors errors(v.file.string());
  if (v.multi_node.master_launch_mode == "script" && node_count != 1)
    errors.add("multi_node.master_launch_mode", "master_launch_mode='script' requires one node; use auto or torchrun "
                                                "(the cluster has " + std::to_string(node_count) + " nodes)");
  return errors.list();
}

}  // namespace aorta::config
