// Secrets never reach a report. The rules (key names, value shapes, known secret
// values) are lib/common/redact.h, shared with the copies of the nodes' logs; here are
// the report's own uses: the stage texts, and input files copied into the report
// bundle with secret values replaced (a file that is not JSON is not copied).
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "common/redact.h"
#include "report/run_record.h"

namespace aorta::report {

using aorta::is_high_entropy;
using aorta::is_secret_key;
using aorta::is_secret_value;
using aorta::kRedacted;
using aorta::looks_like_secret_key;
using aorta::redact_text;
using aorta::redact_value;

// The file's JSON with every secret (at any depth) redacted as redact_value does;
// nullopt when the file cannot be read or is not JSON (the config loader's limits apply).
std::optional<std::string> redacted_json(const std::filesystem::path& file);

}  // namespace aorta::report
