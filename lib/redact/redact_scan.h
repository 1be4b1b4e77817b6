// The pieces redact.cc's scan is built from, shared by its files: character classes,
// a secret's span, the token shapes (redact_shapes.cc) and the line matchers
// (redact_line.cc). Internal to the redaction: callers use redact/redact.h.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace aorta::redact::detail {

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

// The end of the value that starts at pos: a quoted string with its quotes, else up to
// white space, a quote, ',' or ';' (and in a URL's query, '&' or '#').
size_t value_end(std::string_view text, size_t pos, bool query);

// A line without its terminal escape sequences (redact_escapes.cc), and where each of
// its characters stands in the line.
struct EscapeFree {
  std::string text;
  std::vector<size_t> origin;  // origin[k]: the place of text[k] in the line
  // A non-empty span of text as the span of the line that holds it.
  Span in_line(Span s) const;
};

// nullopt when the line has no escape sequence (most lines: it is only searched).
std::optional<EscapeFree> escape_free(std::string_view line);

// What the words of a line before a word say about it (redact_commands.cc): the
// command whose flags take a password (mysql -pX, sshpass -p x, redis-cli -a x,
// docker login -p x), and whether the line is a .netrc entry (machine h ... password x).
struct LineWords {
  std::string_view command;  // one of the table's commands, or empty
  bool netrc = false;
  bool first = true;  // no word read yet
};

// The password the word text[begin, end) carries or introduces, given the words before
// it; the word is noted in words.
std::optional<Span> password_of_word(std::string_view text, size_t begin, size_t end, LineWords& words);

// Private keys in PEM form (-----BEGIN ... PRIVATE KEY-----), redact_private_key.cc.
// On one line (a JSON string's \n): from the BEGIN marker at begin, what follows it up
// to the END marker or the line's end; nullopt when the marker ends the line (its lines
// follow) or is no private key's.
std::optional<Span> private_key_on_line(std::string_view line, size_t begin);
// A line that ends with a private key's BEGIN marker: the text before the marker
// (each of the key's lines starts with it too: a log prefix, an indentation).
std::optional<std::string> private_key_opens(std::string_view line);
// A line after the BEGIN marker: a line of the key (its span in body), a line that
// stays in the block (blank, a PEM header), or the END marker or other text (the block
// ends).
enum class KeyLine { kBody, kKeep, kEnd };
KeyLine private_key_line(std::string_view line, std::string_view prefix, Span& body);

}  // namespace aorta::redact::detail
