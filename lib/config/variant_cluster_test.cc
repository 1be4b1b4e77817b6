#include "config/variant_cluster.h"

#include <gtest/gtest.h>

namespace aorta::config {
namespace {

// Script mode on two nodes crashed test_run_benchmark (one command built, one per
// node indexed); the original refuses it at setup.
TEST(VariantCluster, ScriptModeNeedsExactlyOneNode) {
  Variant v;
  v.file = "/cfg/v.json";
  v.multi_node.master_launch_mode = "script";
  EXPECT_TRUE(check_variant_for_cluster(v, 1).empty());
  auto errors = check_variant_for_cluster(v, 2);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].describe(),
            "/cfg/v.json: multi_node.master_launch_mode: master_launch_mode='script' requires one node; use auto or "
            "torchrun (the cluster has 2 nodes)");
  for (const char* mode : {"auto", "torchrun"}) {
    v.multi_node.master_launch_mode = mode;
    EXPECT_TRUE(check_variant_for_cluster(v, 2).empty()) << mode;
  }
}

}  // namespace
}  // namespace aorta::config
