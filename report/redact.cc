#include "report/redact.h"

#include <algorithm>
#include <cctype>
#include <fstream>

#include <nlohmann/json.hpp>

namespace aorta::report {
namespace {

void redact(nlohmann::json& value) {
  if (value.is_object()) {
    for (auto& [key, child] : value.items()) {
      if (is_secret_key(key) && !child.is_null() && !child.is_boolean())
        child = "<redacted>";
      else
        redact(child);
    }
  } else if (value.is_array()) {
    for (auto& child : value) redact(child);
  }
}

}  // namespace

bool is_secret_key(std::string_view key) {
  std::string lower(key);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* word : {"password", "passphrase", "token", "secret", "api_key", "apikey", "credential"})
    if (lower.find(word) != std::string::npos) return true;
  return false;
}

std::optional<std::string> redacted_json(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return std::nullopt;
  redact(doc);
  return doc.dump(2) + "\n";
}

}  // namespace aorta::report
