// Files shipped with aorta_suite: variant configs, threshold files, the CPU workload.
// Found beside the binary (build tree: <bin>/share/aorta_suite; installed:
// <prefix>/share/aorta_suite), or where AORTA_SUITE_DATA points.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace aorta::config {

// The data directory, or an error naming the places looked at.
Result<std::filesystem::path> shipped_data_dir();

// Names of the shipped config and threshold files, sorted, or the data folder's
// error (naming where it looked).
Result<std::vector<std::string>> shipped_config_names();

// The shipped file called `name` (a path prefix such as benchmark/aorta/ is ignored,
// as in `cvs config copy benchmark/aorta/<name>`).
Result<std::filesystem::path> shipped_config(const std::string& name);

// Copies a shipped file to `output`; refuses to overwrite an existing file.
Status copy_shipped_config(const std::string& name, const std::filesystem::path& output);

inline constexpr const char* kDefaultVariant = "local_cpu_single.json";

}  // namespace aorta::config
