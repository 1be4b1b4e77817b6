// Any bytes as a variant config file: load_variant reports errors, never crashes.
#include "config/variant_loader.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto file = aorta::fuzz::scratch_file(data, size, "variant.json");
  auto loaded = aorta::config::load_variant(file, {"fuzz", "/nonexistent/workload"});
  // A file either loads or explains why not, never both and never neither.
  if (loaded.variant.has_value() == !loaded.errors.empty()) __builtin_trap();
  return 0;
}
