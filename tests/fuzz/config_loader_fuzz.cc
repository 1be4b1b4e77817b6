// Any bytes as a variant config file, or (input starting "T:") as the threshold file
// beside a valid variant: load_variant reports errors, never crashes, and every error
// is short UTF-8 text naming the file. Seeds (seeds/config/) include the hostile
// shapes of issue 14: 1e400, deep nesting, placeholder bombs and reference chains,
// ill-formed UTF-8, integers past int and long long.
#include <string_view>

#include "common/utf8.h"
#include "config/variant_cluster.h"
#include "config/variant_loader.h"
#include "tests/fuzz/fuzz_file.h"

namespace {

// A valid variant whose threshold file is the fuzzer's input.
constexpr std::string_view kVariant = R"({"schema_version": 1, "threshold_json": "t_threshold.json",
  "paths": {"shared_fs": "/s/{user-id}", "models_dir": "{shared_fs}/m", "log_dir": "{shared_fs}/l", "hf_token_file": ""},
  "model": {"id": "m", "remote": 0}, "container": {"name": "c", "runtime": {"name": "none", "args": {}}},
  "aorta_path": "{paths.shared_fs}/aorta", "gpus_per_node": 2, "skip_rccl_build": true})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::filesystem::path file;
  if (input.substr(0, 2) == "T:") {
    aorta::fuzz::scratch_file(data + 2, size - 2, "t_threshold.json");
    file = aorta::fuzz::scratch_file(reinterpret_cast<const uint8_t*>(kVariant.data()), kVariant.size(), "variant.json");
  } else {
    file = aorta::fuzz::scratch_file(data, size, "variant.json");
  }
  auto loaded = aorta::config::load_variant(file, {"fuzz", "/nonexistent/workload"});
  // A file either loads or explains why not, never both and never neither.
  if (loaded.variant.has_value() == !loaded.errors.empty()) __builtin_trap();
  for (const auto& e : loaded.errors) {
    std::string text = e.describe();
    if (!aorta::is_valid_utf8(text) || text.size() > 1400 || e.file.empty()) __builtin_trap();
  }
  if (loaded.variant) {
    auto misfit = aorta::config::check_variant_for_cluster(*loaded.variant, 2);
    if ((loaded.variant->multi_node.master_launch_mode == "script") != !misfit.empty()) __builtin_trap();
  }
  return 0;
}
