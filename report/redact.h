// Secrets never reach a report. The rules (key names, value shapes, known secret
// values) are lib/redact/, shared with the copies of the nodes' logs; here is the
// report's own use: input files copied into the report bundle with secret values
// replaced (a file that is not JSON is not copied).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace aorta::report {

// The file's JSON with every secret (at any depth) redacted as redact_value does;
// nullopt when the file cannot be read or is not JSON (the config loader's limits apply).
std::optional<std::string> redacted_json(const std::filesystem::path& file);

}  // namespace aorta::report
