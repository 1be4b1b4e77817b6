// A valid variant and threshold file written to a fresh folder, edited per test, and
// loaded with the real loader: the variant loader's tests share it.
#pragma once

#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "config/json_fields.h"
#include "config/variant_loader.h"
#include "tests/temp_dir.h"

namespace aorta::config {

inline json valid_variant() {
  return json::parse(R"({
    "schema_version": 1,
    "enforce_thresholds": true,
    "paths": {"shared_fs": "/scratch/{user-id}", "models_dir": "{shared_fs}/models",
              "log_dir": "{shared_fs}/logs", "hf_token_file": ""},
    "model": {"id": "profile_overlap_2gpu", "remote": 0},
    "container": {"name": "{user-id}_aorta", "image": "img:latest",
                  "runtime": {"name": "docker", "args": {"ipc": "host", "network": "host",
                              "volumes": ["{paths.shared_fs}/repo:/mnt"]}},
                  "env": {"NCCL_MAX_NCHANNELS": "112"}},
    "aorta_path": "{paths.shared_fs}/repo",
    "container_mount_path": "/mnt",
    "base_config": "config/profile_overlap_2gpu.yaml",
    "experiment_script": "scripts/launch_rocm.sh",
    "training_overrides": {"training.max_steps": 15},
    "gpus_per_node": 2,
    "skip_rccl_build": true,
    "multi_node": {"train_script": "train.py"}
  })");
}

inline json valid_thresholds() {
  return json::parse(R"({"expected_results": {"max_avg_iteration_ms": 12000, "min_compute_ratio": 0.01,
                                                "min_overlap_ratio": 0.0, "max_time_variance_ratio": 0.5}})");
}

struct Loaded {
  VariantLoad load;
  std::string all_errors() const {
    std::string s;
    for (const auto& e : load.errors) s += e.describe() + "\n";
    return s;
  }
};

inline Loaded load_with(const std::function<void(json&)>& edit_variant,
                 const std::function<void(json&)>& edit_thresholds = [](json&) {}) {
  aorta::testing::TempDir dir;
  json v = valid_variant();
  json t = valid_thresholds();
  edit_variant(v);
  edit_thresholds(t);
  auto file = dir.write("variant.json", v.dump());
  dir.write("variant_threshold.json", t.dump());
  return {load_variant(file, {"alice", "/opt/workload"})};
}

inline void expect_error(const Loaded& loaded, const std::string& needle) {
  EXPECT_FALSE(loaded.load.variant.has_value());
  EXPECT_NE(loaded.all_errors().find(needle), std::string::npos) << "expected '" << needle << "' in:\n"
                                                                  << loaded.all_errors();
}

inline void expect_ok(const Loaded& loaded) { EXPECT_TRUE(loaded.load.variant.has_value()) << loaded.all_errors(); }

}  // namespace aorta::config
