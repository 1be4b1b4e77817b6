// Private keys as PEM writes them (OpenSSH, PKCS#1/#8, EC, PGP): a debugging script
// that cats a key file, or a JSON string with the key's lines joined by \n. The markers
// stay readable; the key's lines go.
#include "redact/redact_scan.h"

namespace aorta::redact::detail {
namespace {

constexpr std::string_view kBegin = "-----BEGIN ", kEnd = "-----END ", kDashes = "-----";

// A longer text before the marker is no log prefix: no block is followed after it.
constexpr size_t kMaxPrefix = 256;

// The end of the BEGIN marker at begin when it opens a private key ("-----BEGIN RSA
// PRIVATE KEY-----", "... PGP PRIVATE KEY BLOCK-----"); npos otherwise. The label is
// upper-case words: the search stops at the first other character.
size_t private_marker_end(std::string_view line, size_t begin) {
  size_t k = begin + kBegin.size();
  auto is_label_char = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' '; };
  while (k < line.size() && is_label_char(line[k])) ++k;
  const std::string_view label = line.substr(begin + kBegin.size(), k - begin - kBegin.size());
  if (label.find("PRIVATE KEY") == std::string_view::npos || line.substr(k, kDashes.size()) != kDashes)
    return std::string_view::npos;
  return k + kDashes.size();
}

bool is_base64_line_char(char c) {
  return is_alnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '=';
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

std::optional<Span> private_key_on_line(std::string_view line, size_t begin) {
  if (line.substr(begin, kBegin.size()) != kBegin) return std::nullopt;
  const size_t from = private_marker_end(line, begin);
  if (from == std::string_view::npos || trimmed(line.substr(from)).empty()) return std::nullopt;
  const size_t to = line.find(kEnd, from);
  return Span{from, to == std::string_view::npos ? line.size() : to};
}

std::optional<std::string> private_key_opens(std::string_view line) {
  const size_t begin = line.rfind(kBegin);
  if (begin == std::string_view::npos || begin > kMaxPrefix) return std::nullopt;
  const size_t end = private_marker_end(line, begin);
  if (end == std::string_view::npos || !trimmed(line.substr(end)).empty()) return std::nullopt;
  std::string_view prefix = line.substr(0, begin);
  while (!prefix.empty() && is_space(prefix.back())) prefix.remove_suffix(1);
  return std::string(prefix);
}

KeyLine private_key_line(std::string_view line, std::string_view prefix, Span& body) {
  if (!starts_with(line, prefix)) return KeyLine::kEnd;
  const std::string_view rest = trimmed(line.substr(prefix.size()));
  const bool header = starts_with(rest, "Proc-Type:") || starts_with(rest, "DEK-Info:") || starts_with(rest, "Comment:");
  if (rest.empty() || header) return KeyLine::kKeep;
  if (!std::all_of(rest.begin(), rest.end(), is_base64_line_char)) return KeyLine::kEnd;
  const size_t at = static_cast<size_t>(rest.data() - line.data());
  body = {at, at + rest.size()};
  return KeyLine::kBody;
}

}  // namespace aorta::redact::detail
