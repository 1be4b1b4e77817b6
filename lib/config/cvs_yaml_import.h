// CVS's legacy test_aorta config (cvs/input/config_file/aorta/aorta_benchmark.yaml)
// turned into our variant JSON and its threshold file, so a CVS user keeps the run
// test_aorta would make: the same image, mount, scripts, GPUs, environment, overrides,
// timeout and gates. Every key of CVS's schema (AortaBenchmarkConfigFile) is mapped,
// with CVS's defaults for the keys a file leaves out; a key CVS refused is refused
// here, and one CVS accepted but never applied (an extra environment variable or
// threshold) is named in a note, never carried silently.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "config/config_error.h"
#include "config/json_fields.h"

namespace aorta::config {

struct CvsYamlImport {
  std::optional<json> variant;     // set only when errors is empty
  json thresholds;                 // {"expected_results": {...}}, the file variant's threshold_json names
  std::vector<std::string> notes;  // what the run does differently from test_aorta, and what was not carried
  std::vector<ConfigError> errors;
};

// The YAML document (yaml_document.h) as a variant whose threshold_json is
// threshold_name; errors are recorded against `source` and the YAML's dotted keys.
CvsYamlImport import_cvs_yaml(const json& yaml, const std::string& source, const std::string& threshold_name);

// The same from the file.
CvsYamlImport import_cvs_yaml_file(const std::filesystem::path& file, const std::string& threshold_name);

}  // namespace aorta::config
