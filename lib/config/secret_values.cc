#include "config/secret_values.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "common/redact.h"
#include "common/shell_quote.h"

namespace aorta::config {
namespace {

// hf_token_file, priv_key_file, key_passphrase_env: the key names where a secret is
// kept, and its value (a path, a variable's name) is not searched for in every log.
bool names_a_place(std::string_view key) {
  const size_t end = key.find_last_of("_-.");
  const std::string_view last = end == std::string_view::npos ? key : key.substr(end + 1);
  for (std::string_view place : {"file", "path", "dir", "env"})
    if (last.size() == place.size() &&
        std::equal(last.begin(), last.end(), place.begin(), [](char a, char b) { return std::tolower(a) == b; }))
      return true;
  return false;
}

void collect(const json& value, std::string_view key, std::vector<std::string>& out) {
  auto found_in = [&](std::string_view text) {
    for (auto& s : secrets_in_text(text)) out.push_back(std::move(s));
  };
  if (value.is_object()) {
    for (const auto& [name, child] : value.items()) collect(child, name, out);
  } else if (value.is_array()) {
    // An argument list: "--password", "x" are two elements, read as the command line.
    std::vector<std::string> words;
    for (const auto& child : value) {
      collect(child, key, out);
      if (child.is_string()) words.push_back(child.get<std::string>());
    }
    found_in(shell_join(words));
  } else if (!value.is_null() && !value.is_boolean()) {
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    if (text.empty()) return;
    // A place (priv_key_file, hf_token_file) is no secret, however random its path
    // looks: searching for it would blank the key's path in every error naming it.
    if (names_a_place(key)) return;
    if (is_secret_key(key) || (looks_like_secret_key(key) && is_high_entropy(text)))
      out.push_back(text);
    else
      found_in(text);
  }
}

}  // namespace

std::vector<std::string> secret_values(const json& doc) {
  std::vector<std::string> out;
  collect(doc, "", out);
  return out;
}

}  // namespace aorta::config
