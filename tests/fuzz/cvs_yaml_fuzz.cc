// Any bytes as CVS's test_aorta YAML: `config import` either gives a variant that our
// loader accepts or explains why not, never crashes, hangs or expands an alias bomb;
// every error is short UTF-8 text naming the file. Seeds (seeds/yaml/): CVS's sample,
// an alias bomb, deep nesting, a duplicate key, a python tag, bytes that are not UTF-8.
#include <string_view>

#include "common/utf8.h"
#include "config/cvs_yaml_import.h"
#include "config/variant_loader.h"
#include "tests/fuzz/fuzz_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto yaml = aorta::fuzz::scratch_file(data, size, "input.yaml");
  auto imported = aorta::config::import_cvs_yaml_file(yaml, "t_threshold.json");
  // An import either gives a variant or explains why not, never both and never neither.
  if (imported.variant.has_value() == !imported.errors.empty()) __builtin_trap();
  for (const auto& e : imported.errors) {
    std::string text = e.describe();
    if (!aorta::is_valid_utf8(text) || text.size() > 1400 || e.file.empty()) __builtin_trap();
  }
  if (!imported.variant) return 0;
  // What it wrote goes through the run's loader without a crash (a value the YAML
  // allowed and our rules refuse is an error there, which is fine).
  std::string variant = imported.variant->dump(-1, ' ', false, aorta::config::json::error_handler_t::replace);
  std::string thresholds = imported.thresholds.dump(-1, ' ', false, aorta::config::json::error_handler_t::replace);
  aorta::fuzz::scratch_file(reinterpret_cast<const uint8_t*>(thresholds.data()), thresholds.size(), "t_threshold.json");
  auto file = aorta::fuzz::scratch_file(reinterpret_cast<const uint8_t*>(variant.data()), variant.size(), "t.json");
  auto loaded = aorta::config::load_variant(file, {"fuzz", "/nonexistent/workload"});
  if (loaded.variant.has_value() == !loaded.errors.empty()) __builtin_trap();
  return 0;
}
