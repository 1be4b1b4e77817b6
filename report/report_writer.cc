#include "report/report_writer.h"

#include <fmt/format.h>

namespace aorta::report {

std::string escape_xml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\n': out += "&#10;"; break;
      case '\t': out += "&#9;"; break;
      case '\r': out += "&#13;"; break;
      default:
        if (c >= 0x20) out += static_cast<char>(c);  // other control characters are not XML 1.0
    }
  }
  return out;
}

std::string link_href(const std::string& link) {
  std::string url;
  for (unsigned char c : link) {
    if (c <= 0x20 || c == 0x7f || c == '%' || c == '#' || c == '?' || c == '\\') url += fmt::format("%{:02X}", c);
    else url += static_cast<char>(c);
  }
  const size_t colon = url.find(':'), slash = url.find('/');
  if (colon != std::string::npos && (slash == std::string::npos || colon < slash)) url = "./" + url;
  return escape_xml(url);
}

}  // namespace aorta::report
