// A line as a terminal shows it. Coloured output (jq -C, rich, loguru, grep --color)
// puts escape sequences inside and around key names: \e[1mDB_PASSWORD\e[0m=value reads
// as a key "0m" to a rule that looks at the characters before the '='. The rules read
// the line without its escapes as well; what they find is mapped back to the line.
#include "redact/redact_scan.h"

namespace aorta::redact::detail {
namespace {

// form (lower case) at line[pos], in any case: \x1B is \x1b.
bool written_at(std::string_view line, size_t pos, std::string_view form) {
  if (line.size() - pos < form.size()) return false;
  for (size_t k = 0; k < form.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(line[pos + k])) != form[k]) return false;
  return true;
}

// How an escape (ESC, 0x1b) is written: the byte itself, or as source code and JSON
// write it when a log is escaped once more. Returns the introducer's length at pos, 0
// when there is none.
size_t introducer_at(std::string_view line, size_t pos) {
  if (line[pos] == '\x1b') return 1;
  if (line[pos] != '\\') return 0;
  for (std::string_view form : {"\\x1b", "\\033", "\\u001b", "\\e"})
    if (written_at(line, pos, form)) return form.size();
  return 0;
}

bool in(char c, char lo, char hi) { return c >= lo && c <= hi; }

// The end of an OSC's text (a title, a hyperlink) from pos: after its BEL or its
// string terminator (ESC \); npos when the line has none.
size_t osc_end(std::string_view line, size_t pos) {
  for (size_t k = pos; k < line.size(); ++k) {
    if (line[k] == '\x07') return k + 1;
    for (std::string_view bel : {"\\u0007", "\\x07", "\\a"})
      if (written_at(line, k, bel)) return k + bel.size();
    if (const size_t n = introducer_at(line, k); n && k + n < line.size() && line[k + n] == '\\') return k + n + 1;
  }
  return std::string_view::npos;
}

// The length of the escape sequence at pos (0: none): CSI (ESC [ parameters,
// intermediates, a final byte: colours, cursor moves, erase), OSC (ESC ] text BEL),
// and the two-byte escapes (ESC followed by one character: ESC M, ESC 7, ESC ( B's
// first part). osc_open_after: past this, no OSC has an end (searched once).
size_t sequence_at(std::string_view line, size_t pos, size_t& osc_open_after) {
  const size_t n = introducer_at(line, pos);
  if (n == 0 || pos + n >= line.size()) return 0;
  size_t k = pos + n;
  const char kind = line[k++];
  if (n > 1 && kind != '[' && kind != ']') return 0;  // "\\ex" in a path is no escape
  if (kind == '[') {
    while (k < line.size() && in(line[k], 0x30, 0x3f)) ++k;
    while (k < line.size() && in(line[k], 0x20, 0x2f)) ++k;
    return k < line.size() && in(line[k], 0x40, 0x7e) ? k + 1 - pos : 0;
  }
  if (kind == ']') {
    if (k >= osc_open_after) return 0;
    const size_t end = osc_end(line, k);
    if (end == std::string_view::npos) {
      osc_open_after = k;
      return 0;
    }
    return end - pos;
  }
  while (in(kind, 0x20, 0x2f) && k < line.size() && in(line[k], 0x20, 0x2f)) ++k;  // ESC ( B: charset
  if (in(kind, 0x20, 0x2f)) return k < line.size() && in(line[k], 0x30, 0x7e) ? k + 1 - pos : 0;
  return in(kind, 0x30, 0x7e) ? k - pos : 0;
}

}  // namespace

std::optional<EscapeFree> escape_free(std::string_view line) {
  size_t osc_open_after = std::string_view::npos;
  // Most lines have no escape: they are only searched, nothing is copied.
  size_t pos = line.find_first_of("\x1b\\");
  while (pos != std::string_view::npos && sequence_at(line, pos, osc_open_after) == 0)
    pos = line.find_first_of("\x1b\\", pos + 1);
  if (pos == std::string_view::npos) return std::nullopt;
  EscapeFree out;
  out.text.reserve(line.size());
  out.origin.reserve(line.size());
  for (size_t k = 0; k < line.size();) {
    if (const size_t n = k >= pos ? sequence_at(line, k, osc_open_after) : 0) {
      k += n;
      continue;
    }
    out.text += line[k];
    out.origin.push_back(k++);
  }
  return out;
}

Span EscapeFree::in_line(Span s) const { return {origin[s.first], origin[s.second - 1] + 1}; }

}  // namespace aorta::redact::detail
