#include "job/kernel_events.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "job/kernel_ignore.h"
#include "job/kernel_mce.h"
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

// A pattern as the scan runs it: node-scraper's table, the config's or CVS's legacy ones.
struct Active {
  const PcrePattern* re;
  std::string message;
  std::string category;      // shown: node-scraper's, or CVS's legacy name
  std::string cvs_category;  // node-scraper's name, which exclude_category compares
  bool warn_only = false;
  bool multi_line = false;
};

// node-scraper's RegexAnalyzer.TIMESTAMP_PATTERN: the time of the line a match starts on.
std::optional<std::string> stamp_of(const std::string& line) {
  static const PcrePattern kStamp(R"re((\d{4}-\d+-\d+T\d+:\d+:\d+,\d+[+-]\d+:\d+))re");
  auto m = kStamp.search(line);
  if (!m) return std::nullopt;
  return std::string(*m->groups[0]);
}

// Events keyed by their content: a repeat adds to the count, and its time to the
// times listed unless within the collapse interval of one listed (node-scraper's rule).
struct Events {
  const std::vector<std::string>& window;
  const KernelIgnoreRules& ignore;
  const std::set<size_t>& skip;  // lines a match may not start on (machine-check rows)
  int interval = 60;
  std::vector<KernelLogMatch> list;
  std::vector<std::string> cvs_categories;  // list's, for exclude_category
  std::map<std::string, size_t> by_content;
  std::set<size_t> named_lines;

  bool passed_over(size_t line, std::string_view match, const std::string& message) const {
    return skip.count(line) || ignore.ignores(window[line], match, message);
  }

  // A search that gave up (PCRE2's match limit) at `line`: the line cannot be judged
  // clean, so it is an event of its own, saying which pattern could not be searched.
  void gave_up(size_t line, const std::string& message) {
    const std::string what = "Kernel-log scan incomplete: the pattern '" + message +
                             "' gave up on this line (PCRE2's match limit); check the line by hand";
    auto [it, fresh] = by_content.emplace(what + '\n' + window[line], list.size());
    if (!fresh) return;
    list.push_back({"", "UNKNOWN", window[line], false, what, window[line], 1, {}});
    cvs_categories.push_back("");
  }

  // The event's lines are first..last; the first is the one reported.
  void add(size_t line, size_t last, std::string content, const Active& p) {
    for (size_t i = line; i <= last; ++i) named_lines.insert(i);
    const auto stamp = stamp_of(window[line]);
    auto [it, fresh] = by_content.emplace(content, list.size());
    if (fresh) {
      list.push_back({"", p.category, window[line], p.warn_only, p.message, std::move(content), 1, {}});
      if (stamp) list.back().timestamps.push_back(*stamp);
      cvs_categories.push_back(p.cvs_category);
      return;
    }
    auto& event = list[it->second];
    ++event.count;
    if (stamp && !near_one(*stamp, event.timestamps)) event.timestamps.push_back(*stamp);
  }

  bool near_one(const std::string& stamp, const std::vector<std::string>& listed) const {
    const auto t = iso_line_time(stamp);
    for (const auto& s : listed)
      if (auto u = iso_line_time(s); t && u && std::abs(*t - *u) < interval) return true;
    return false;
  }
};

// Searches one pattern over the window's text (a block) or line by line; a match that
// starts on a skipped line, or that a rule ignores, is searched again one byte on.
void find_pattern(const Active& p, const std::string& text, const std::vector<size_t>& line_starts, Events& events) {
  auto line_at = [&](size_t at) {
    return size_t(std::upper_bound(line_starts.begin(), line_starts.end(), at) - line_starts.begin() - 1);
  };
  auto each = [&](std::string_view subject, size_t base) {
    size_t from = 0;
    while (true) {
      auto m = p.re->search(subject, from);
      if (!m && p.re->limit_hit()) {  // never a silent pass: the line is named, the search goes on after it
        events.gave_up(line_at(base + from), p.message);
        const size_t next = subject.find('\n', from);
        if (next == std::string_view::npos) break;
        from = next + 1;
        continue;
      }
      if (!m) break;
      const size_t first = line_at(base + m->start);
      if (events.passed_over(first, subject.substr(m->start, m->end - m->start), p.message)) {
        from = m->start + 1;
        continue;
      }
      const size_t last = line_at(base + (m->end > m->start ? m->end - 1 : m->start));
      events.add(first, last, content_of(*m, subject), p);
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
    for (size_t k = 0; k < compiled.size(); ++k) {
      const auto& p = legacy_patterns()[k];
      const Active active{&compiled[k], p.warn_only ? "GPU in degraded state" : std::string("CVS ") + p.category + " pattern",
                          p.category, p.cvs_category, p.warn_only};
      auto m = compiled[k].search(line);
      if (!m || events.passed_over(i, line.substr(m->start, m->end - m->start), active.message)) continue;
      events.add(i, i, content_of(*m, line), active);
      break;
    }
  }
}

// node-scraper's test of an unknown error: a pattern names it, or its text and a
// named event's text (whitespace squeezed) hold one another.
bool known(const std::string& content, const std::vector<KernelLogMatch>& named, const std::vector<Active>& patterns) {
  for (const auto& p : patterns)
    if (p.re->matches(content)) return true;
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

// Unknown errors, judged against the events kept (node-scraper's order: after exclude_category).
void find_unknown(const Events& events, std::vector<KernelLogMatch>& out, const std::vector<Active>& patterns) {
  static const PcrePattern kUnknown(kUnknownErrorRegex);
  static const Active kRule{&kUnknown, kUnknownErrorMessage, "UNKNOWN", "UNKNOWN"};
  const auto skip = mce_unknown_skip_lines(events.window);
  Events unknown{events.window, events.ignore, skip, events.interval, {}, {}, {}, {}};
  for (size_t i = 0; i < events.window.size(); ++i) {
    auto m = kUnknown.search(events.window[i]);
    if (!m || unknown.passed_over(i, std::string_view(events.window[i]).substr(m->start, m->end - m->start),
                                  kRule.message))
      continue;
    std::string content = content_of(*m, events.window[i]);
    if (!known(content, out, patterns)) unknown.add(i, i, std::move(content), kRule);
  }
  const std::vector<KernelLogMatch> found = unknown.list;
  out.insert(out.end(), found.begin(), found.end());
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

namespace {

// The config's patterns, node-scraper's table, then CVS's legacy ones when asked for:
// every pattern that makes a line known to the unknown-error rule.
std::vector<Active> active_patterns(const std::vector<PcrePattern>& added, const config::KernelLogRules& config,
                                    bool legacy) {
  std::vector<Active> out;
  for (size_t i = 0; i < added.size(); ++i) {
    const auto& r = config.error_regex[i];
    out.push_back({&added[i], r.message, r.event_category, r.event_category, false, true});
  }
  const auto& table = node_scraper_patterns();
  for (size_t i = 0; i < table.size(); ++i)
    out.push_back({&compiled_node_scraper()[i], table[i].message, table[i].category, table[i].category, false,
                   table[i].multi_line});
  if (legacy)
    for (size_t k = 0; k < legacy_patterns().size(); ++k)
      out.push_back({&compiled_legacy_patterns()[k], "", "", "", false, false});
  return out;
}

// node-scraper keeps the first and the last num_timestamps times of an event.
void prune_times(std::vector<KernelLogMatch>& events, int keep) {
  for (auto& e : events)
    if (e.timestamps.size() > 2 * size_t(keep))
      e.timestamps.erase(e.timestamps.begin() + keep, e.timestamps.end() - keep);
}

}  // namespace

std::vector<KernelLogMatch> kernel_events(const std::vector<std::string>& uncapped, KernelEventRules rules) {
  static const config::KernelLogRules kDefaults;
  const config::KernelLogRules& config = rules.config ? *rules.config : kDefaults;
  const std::vector<std::string> window = capped(uncapped);
  std::string text;
  std::vector<size_t> line_starts;
  for (const auto& line : window) {
    line_starts.push_back(text.size());
    text += line;
    text += '\n';
  }
  std::vector<PcrePattern> added;
  for (const auto& r : config.error_regex) added.emplace_back(r.regex);
  const KernelIgnoreRules ignore(config.ignore_match_rules);
  const auto skip = mce_known_skip_lines(window, ignore.banks());
  Events events{window, ignore, skip, config.interval_to_collapse_event, {}, {}, {}, {}};
  const auto patterns = active_patterns(added, config, rules.legacy_extensions);
  const size_t searched = added.size() + node_scraper_patterns().size();
  for (size_t i = 0; i < searched; ++i) find_pattern(patterns[i], text, line_starts, events);
  if (rules.legacy_extensions) find_legacy(events);
  std::vector<KernelLogMatch> out;
  for (size_t i = 0; i < events.list.size(); ++i)
    if (!config.exclude_category.count(events.cvs_categories[i])) out.push_back(events.list[i]);
  if (rules.unknown_errors) find_unknown(events, out, patterns);
  prune_times(out, config.num_timestamps);
  return out;
}

}  // namespace aorta::job
