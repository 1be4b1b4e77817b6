#include "common/utf8.h"

namespace aorta {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed sequence at text[i], or 0 when it is ill-formed; in
// that case *subpart is the length of the maximal ill-formed subpart (at least 1).
size_t sequence_length(std::string_view text, size_t i, size_t* subpart) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  *subpart = 1;
  if (lead < 0x80) return 1;
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte (Table 3-7)
  if (lead >= 0xC2 && lead <= 0xDF) need = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 3;
    if (lead == 0xE0) lo = 0xA0;
    if (lead == 0xED) hi = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 4;
    if (lead == 0xF0) lo = 0x90;
    if (lead == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  for (size_t k = 1; k < need; ++k) {
    if (i + k >= text.size()) return 0;
    unsigned char b = byte(i + k);
    bool ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    if (!ok) return 0;
    *subpart = k + 1;
  }
  return need;
}

}  // namespace

std::string valid_utf8(std::string_view text) {
  if (is_valid_utf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  size_t i = 0;
  while (i < text.size()) {
    size_t subpart;
    size_t n = sequence_length(text, i, &subpart);
    if (n) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out.append(kReplacement);
      i += subpart;
    }
  }
  return out;
}

bool is_valid_utf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    size_t subpart;
    size_t n = sequence_length(text, i, &subpart);
    if (!n) return false;
    i += n;
  }
  return true;
}

std::string_view utf8_prefix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = max_bytes;
  // Step back over continuation bytes to the lead byte of the character that was cut.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

namespace {

// printable()'s escaping, with or without line breaks kept.
std::string escape_controls(std::string_view text, bool keep_newlines) {
  const std::string valid = valid_utf8(text);
  std::string out;
  out.reserve(valid.size());
  static const char* const kHex = "0123456789abcdef";
  for (size_t i = 0; i < valid.size(); ++i) {
    const auto c = static_cast<unsigned char>(valid[i]);
    // C1 controls are U+0080..U+009F: 0xC2 0x80..0x9F in UTF-8.
    const bool c1 = c == 0xC2 && i + 1 < valid.size() && static_cast<unsigned char>(valid[i + 1]) <= 0x9F &&
                    static_cast<unsigned char>(valid[i + 1]) >= 0x80;
    if ((c < 0x20 && c != '\t' && !(keep_newlines && c == '\n')) || c == 0x7F || c1) {
      const unsigned char shown = c1 ? static_cast<unsigned char>(valid[++i]) : c;
      out += "\\x";
      out += kHex[shown >> 4];
      out += kHex[shown & 15];
      continue;
    }
    out += static_cast<char>(c);
  }
  return out;
}

}  // namespace

std::string printable(std::string_view text) { return escape_controls(text, false); }

std::string printable_text(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return escape_controls(text, true);
  return escape_controls(utf8_prefix(text, max_bytes), true) + " [cut: " + std::to_string(text.size()) +
         " bytes in all]";
}

}  // namespace aorta
