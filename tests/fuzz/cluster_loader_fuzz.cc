// Any bytes as a cluster file: load_cluster reports errors, never crashes, and every
// error is short UTF-8 text naming the file. Seeds (seeds/cluster/) include 1e400,
// deep nesting, ill-formed UTF-8, huge integers and a {user-id} expansion bomb.
#include "common/utf8.h"
#include "config/cluster.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = aorta::fuzz::scratch_file(data, size, "cluster.json");
  auto loaded = aorta::config::load_cluster(file, "fuzz");
  if (loaded.cluster.has_value() == !loaded.errors.empty()) __builtin_trap();
  if (loaded.cluster && loaded.cluster->nodes.empty()) __builtin_trap();  // a loaded cluster has a head
  for (const auto& e : loaded.errors) {
    std::string text = e.describe();
    if (!aorta::is_valid_utf8(text) || text.size() > 1400 || e.file.empty()) __builtin_trap();
  }
  return 0;
}
