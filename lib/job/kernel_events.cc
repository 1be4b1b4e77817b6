#include "job/kernel_events.h"

#include <algorithm>
#include <map>
#include <set>

#include "job/kernel_patterns.h"

namespace aorta::job {
namespace {

const std::vector<PcrePattern>& compiled_node_scraper() {
  static const std::vector<PcrePattern> kCompiled = [] {
    std::vector<PcrePattern> out;
    for (const auto& p : node_scraper_patterns()) out.emplace_back(p.regex, p.ignore_case);
    return out;
  }();
  return kCompiled;
}

std::string trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "";
  return std::string(s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1));
}

// node-scraper's match_content: the capture groups that matched (empty ones left out),
// else the whole match; a multi-line match becomes its trimmed lines.
std::string content_of(const PatternMatch& m, std::string_view text) {
  std::vector<std::string_view> parts;
  for (const auto& g : m.groups)
    if (g && !g->empty()) parts.push_back(*g);
  if (parts.empty()) parts.push_back(text.substr(m.start, m.end - m.start));
  std::string out;
  for (auto part : parts) {
    size_t at = 0;
    std::string_view rest = part;
    do {
      at = rest.find('\n');
      std::string piece = parts.size() == 1 ? trim(rest.substr(0, at)) : std::string(rest.substr(0, at));
      if (!piece.empty()) out += (out.empty() ? "" : "\n") + piece;
      rest = at == std::string_view::npos ? std::string_view() : rest.substr(at + 1);
    } while (at != std::string_view::npos);
  }
  return out;
}

std::string squeeze(std::string_view s) {
  std::string out;
  for (char c : s) {
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (space && (out.empty() || out.back() == ' ')) continue;
    out += space ? ' ' : c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// Events keyed by their content: a repeat adds to the count (node-scraper collapses it).
struct Events {
  const std::vector<std::string>& window;
  std::vector<KernelLogMatch> list;
  std::map<std::string, size_t> by_content;
  std::set<size_t> named_lines;

  // The event's lines are first..last; the first is the one reported.
  void add(size_t line, size_t last, std::string content, const char* message, const char* category, bool warn_only) {
    for (size_t i = line; i <= last; ++i) named_lines.insert(i);
    auto [it, fresh] = by_content.emplace(content, list.size());
    if (!fresh) {
      ++list[it->second].count;
      return;
    }
    list.push_back({"", category, window[line], warn_only, message, std::move(content), 1});
  }
};

// Searches one pattern over the window's text (a block) or line by line.
void find_pattern(const KernelPattern& p, const PcrePattern& re, const std::string& text,
                  const std::vector<size_t>& line_starts, Events& events) {
  auto each = [&](std::string_view subject, size_t base) {
    size_t from = 0;
    while (auto m = re.search(subject, from)) {
      auto line_at = [&](size_t at) {
        return size_t(std::upper_bound(line_starts.begin(), line_starts.end(), at) - line_starts.begin() - 1);
      };
      const size_t last = line_at(base + (m->end > m->start ? m->end - 1 : m->start));
      events.add(line_at(base + m->start), last, content_of(*m, subject), p.message, p.category, false);
      from = m->end > m->start ? m->end : m->start + 1;
    }
  };
  if (p.multi_line) return each(text, 0);
  for (size_t i = 0; i < events.window.size(); ++i) each(events.window[i], line_starts[i]);
}

// CVS's legacy categories, added after node-scraper's table: a line not named yet.
void find_legacy(Events& events) {
  static const PcrePattern kIgnored("ALLOWED|DENIED|IPVS: .*no destination available");
  const auto& compiled = compiled_legacy_patterns();
  for (size_t i = 0; i < events.window.size(); ++i) {
    const std::string& line = events.window[i];
    if (events.named_lines.count(i) || kIgnored.matches(line)) continue;
    for (size_t k = 0; k < compiled.size(); ++k)
      if (auto m = compiled[k].search(line)) {
        const auto& p = legacy_patterns()[k];
        events.add(i, i, content_of(*m, line), p.warn_only ? "GPU in degraded state" : "CVS legacy pattern", p.category,
                   p.warn_only);
        break;
      }
  }
}

// node-scraper's test of an unknown error: a pattern names it, or its text and a
// named event's text (whitespace squeezed) hold one another.
bool known(const std::string& content, const std::vector<KernelLogMatch>& named, bool legacy) {
  for (const auto& re : compiled_node_scraper())
    if (re.matches(content)) return true;
  for (const auto& re : compiled_legacy_patterns())
    if (legacy && re.matches(content)) return true;
  const std::string wanted = squeeze(content);
  for (const auto& e : named) {
    size_t begin = 0;
    while (begin <= e.content.size()) {
      size_t stop = std::min(e.content.find('\n', begin), e.content.size());
      const std::string line = squeeze(std::string_view(e.content).substr(begin, stop - begin));
      if (line.find(wanted) != std::string::npos || wanted.find(line) != std::string::npos) return true;
      begin = stop + 1;
    }
  }
  return false;
}

void find_unknown(Events& events, bool legacy, std::vector<KernelLogMatch>& out) {
  static const PcrePattern kUnknown(kUnknownErrorRegex);
  Events unknown{events.window, {}, {}, {}};
  for (size_t i = 0; i < events.window.size(); ++i) {
    auto m = kUnknown.search(events.window[i]);
    if (!m) continue;
    std::string content = content_of(*m, events.window[i]);
    if (!known(content, events.list, legacy)) unknown.add(i, i, std::move(content), kUnknownErrorMessage, "UNKNOWN", false);
  }
  out.insert(out.end(), unknown.list.begin(), unknown.list.end());
}

}  // namespace

const std::vector<PcrePattern>& compiled_legacy_patterns() {
  static const std::vector<PcrePattern> kCompiled = [] {
    std::vector<PcrePattern> out;
    for (const auto& p : legacy_patterns()) out.emplace_back(p.regex, true);
    return out;
  }();
  return kCompiled;
}

namespace {

// The kernel writes at most 1 KiB per record (printk's LOG_LINE_MAX), so a longer line
// is not the kernel's: it is matched and shown up to this length, which bounds the
// scan's work (a pattern's cost grows with the square of a line's length).
constexpr size_t kLineCap = 4096;

std::vector<std::string> capped(const std::vector<std::string>& window) {
  std::vector<std::string> out;
  out.reserve(window.size());
  for (const auto& line : window)
    out.push_back(line.size() <= kLineCap ? line
                                          : line.substr(0, kLineCap) + " [" + std::to_string(line.size() - kLineCap) +
                                                " more bytes not scanned]");
  return out;
}

}  // namespace

std::vector<KernelLogMatch> kernel_events(const std::vector<std::string>& uncapped, KernelEventRules rules) {
  const std::vector<std::string> window = capped(uncapped);
  std::string text;
  std::vector<size_t> line_starts;
  for (const auto& line : window) {
    line_starts.push_back(text.size());
    text += line;
    text += '\n';
  }
  Events events{window, {}, {}, {}};
  const auto& patterns = node_scraper_patterns();
  for (size_t i = 0; i < patterns.size(); ++i) find_pattern(patterns[i], compiled_node_scraper()[i], text, line_starts, events);
  if (rules.legacy_extensions) find_legacy(events);
  std::vector<KernelLogMatch> out = events.list;
  if (rules.unknown_errors) find_unknown(events, rules.legacy_extensions, out);
  return out;
}

}  // namespace aorta::job
