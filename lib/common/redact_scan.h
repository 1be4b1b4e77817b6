// The pieces redact.cc's scan is built from, shared by its files: character classes,
// a secret's span, the token shapes (redact_shapes.cc) and the line matchers
// (redact_line.cc). Internal to the redaction: callers use common/redact.h.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aorta::redact_detail {

using Span = std::pair<size_t, size_t>;  // [begin, end) of a secret in the text

inline std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

inline bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

inline bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

inline bool is_one_of(char c, std::string_view set) { return set.find(c) != std::string_view::npos; }

// ASCII only, and inline: the scan asks this of every byte of every log.
inline bool is_alnum(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Characters of a key name: HF_TOKEN, --api-key, wandb.api.key.
inline bool is_name_char(unsigned char c) { return is_alnum(c) || c == '_' || c == '-' || c == '.'; }

inline bool all_of(std::string_view s, int (*pred)(int)) {
  return std::all_of(s.begin(), s.end(), [pred](unsigned char c) { return pred(c) != 0; });
}

inline std::string_view unquoted(std::string_view value) {
  while (!value.empty() && is_one_of(value.front(), "\\\"'")) value.remove_prefix(1);
  while (!value.empty() && is_one_of(value.back(), "\\\"'")) value.remove_suffix(1);
  return value;
}

// One word (a maximal run of token characters) against the token formats providers
// document; lengths are the documented minimums, so ordinary names do not match.
bool is_token_shape(std::string_view w);

// "|", ">-", "|2": a YAML block scalar's indicator, when nothing but a comment follows.
bool is_block_indicator(std::string_view value, std::string_view rest_of_line);

// Every secret in one line (no '\n') by its shape; offset: the line's place in the text.
void shape_spans(std::string_view line, size_t offset, std::vector<Span>& out);

}  // namespace aorta::redact_detail
