// Rules that need both files: the variant's settings against the cluster it runs on.
// main checks them once the cluster is final (a Slurm job may replace the cluster
// file's nodes), before any node is touched.
#pragma once

#include <cstddef>
#include <vector>

#include "config/config_error.h"
#include "config/variant.h"

namespace aorta::config {

// Errors against the variant file: master_launch_mode "script" runs one process tree
// on the head node only, so the original refuses it for two or more nodes at setup.
std::vector<ConfigError> check_variant_for_cluster(const Variant& v, std::size_t node_count);

}  // namespace aorta::config
