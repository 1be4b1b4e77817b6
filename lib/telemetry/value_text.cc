#include "telemetry/value_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace aorta::telemetry {

std::optional<double> leading_number(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool starts = (c >= '0' && c <= '9') || ((c == '-' || c == '.') && i + 1 < text.size() &&
                                                   text[i + 1] >= '0' && text[i + 1] <= '9');
    if (!starts) continue;
    double v = 0;
    auto [end, ec] = std::from_chars(text.data() + i, text.data() + text.size(), v);
    if (ec != std::errc() || !std::isfinite(v)) return std::nullopt;
    return v;
  }
  return std::nullopt;
}

std::optional<double> json_number(const nlohmann::json& v) {
  if (v.is_number()) {
    const double d = v.get<double>();
    return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
  }
  if (v.is_object() && v.contains("value")) return json_number(v["value"]);
  if (v.is_string()) return leading_number(v.get_ref<const std::string&>());
  return std::nullopt;
}

std::vector<std::string_view> json_documents(std::string_view body) {
  std::vector<std::string_view> docs;
  int depth = 0;
  bool in_string = false, escaped = false;
  size_t start = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"' && depth > 0) in_string = true;
    else if (c == '[' || c == '{') {
      if (depth++ == 0) start = i;
    } else if ((c == ']' || c == '}') && depth > 0 && --depth == 0) {
      docs.push_back(body.substr(start, i + 1 - start));
    }
  }
  if (depth > 0) docs.push_back(body.substr(start));  // cut short: the parser names it
  return docs;
}

std::vector<std::string_view> text_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  for (size_t pos = 0; pos < text.size();) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return lines;
}

}  // namespace aorta::telemetry
