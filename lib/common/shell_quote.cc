#include "common/shell_quote.h"

namespace aorta {

std::string shell_quote(std::string_view text) {
  // Words made only of these characters need no quotes; keeping them bare keeps
  // generated scripts readable in logs.
  bool plain = !text.empty();
  for (char c : text) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '_' || c == '-' || c == '.' || c == '/' || c == ':' || c == '=' || c == ',' ||
                c == '+' || c == '@' || c == '%';
    if (!safe) {
      plain = false;
      break;
    }
  }
  if (plain) return std::string(text);
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  out += "'";
  return out;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& arg : argv) {
    if (!out.empty()) out += ' ';
    out += shell_quote(arg);
  }
  return out;
}

}  // namespace aorta
