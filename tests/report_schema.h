// Whether a JSON file passes report/benchmark_report.schema.json (or one of its
// top-level properties), by tests/suite/json_schema.py, the checker the suite tests use.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::testing {

// `property`: "" for the whole report, else that property's schema ("diagnosis").
inline bool passes_report_schema(const std::filesystem::path& file, const std::string& property = "") {
  const std::string source = AORTA_SOURCE_DIR;
  const std::string part = property.empty() ? "" : "['properties']['" + property + "']";
  const std::string script =
      "import json, sys; sys.path.insert(0, '" + source + "/tests/suite'); import json_schema; "
      "schema = json.load(open('" + source + "/report/benchmark_report.schema.json'))" + part + "; "
      "e = json_schema.errors(json.load(open('" + file.string() + "')), schema); print(e); sys.exit(1 if e else 0)";
  return std::system(("/usr/bin/python3 -c \"" + script + "\"").c_str()) == 0;
}

}  // namespace aorta::testing
