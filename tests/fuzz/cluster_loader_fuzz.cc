// Any bytes as a cluster file: load_cluster reports errors, never crashes.
#include "config/cluster.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = aorta::fuzz::scratch_file(data, size, "cluster.json");
  auto loaded = aorta::config::load_cluster(file, "fuzz");
  if (loaded.cluster.has_value() == !loaded.errors.empty()) __builtin_trap();
  if (loaded.cluster && loaded.cluster->nodes.empty()) __builtin_trap();  // a loaded cluster has a head
  return 0;
}
