// Loads a variant config and its sibling threshold file, resolves placeholders and
// checks every rule of reference §2.5 before anything touches a node.
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "config/config_error.h"
#include "config/placeholders.h"
#include "config/variant.h"

namespace aorta::config {

struct VariantLoad {
  std::optional<Variant> variant;    // set only when errors is empty
  std::vector<ConfigError> errors;   // every problem in both files, in file order
  std::vector<std::string> secrets;  // the secret values it holds (secret_values.h), errors or not
};

VariantLoad load_variant(const std::filesystem::path& file, const PlaceholderValues& values);

// The threshold file for a variant: threshold_json (relative to the variant's folder)
// or the single *threshold.json beside it.
std::optional<std::filesystem::path> find_threshold_file(const std::filesystem::path& variant_file,
                                                         const std::string& threshold_json,
                                                         ConfigErrors& errors);

// The threshold keys the parser can check, in catalogue order (metrics/threshold_catalogue.h).
const std::vector<std::string>& threshold_keys();

}  // namespace aorta::config
