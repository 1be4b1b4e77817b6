#include "slurm/hostlist.h"

#include <algorithm>

#include <fmt/format.h>

namespace aorta::slurm {
namespace {

// The expression as a message quotes it: a list of thousands of ranges is cut short.
std::string quoted(std::string_view expression) {
  constexpr size_t kShown = 80;
  if (expression.size() <= kShown) return "'" + std::string(expression) + "'";
  return fmt::format("'{}...' ({} bytes)", expression.substr(0, kShown), expression.size());
}

Error bad(std::string_view expression, const std::string& why) {
  return Error{ErrorCode::kInvalidInput, "hostlist " + quoted(expression) + ": " + why, ""};
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// Sums and products of host counts stop just past the limit: the count only has to
// tell "too many", and so never overflows.
size_t capped_add(size_t a, size_t b, size_t cap) { return a >= cap || b >= cap - a ? cap : a + b; }
size_t capped_multiply(size_t a, size_t b, size_t cap) { return a != 0 && b >= cap / a + 1 ? cap : std::min(a * b, cap); }

// Splits at commas outside brackets.
Result<std::vector<std::string_view>> split_top_level(std::string_view text, std::string_view whole) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '[') ++depth;
    if (text[i] == ']' && --depth < 0) return bad(whole, "unbalanced ']'");
    if (text[i] == ',' && depth == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) return bad(whole, "unbalanced '['");
  parts.push_back(text.substr(start));
  return parts;
}

// "01-04" or "07": numbers first..last, printed `width` digits wide.
struct Range {
  unsigned long long first = 0, last = 0;
  size_t width = 0;
};

// One bracket's ranges, "01-04,07", parsed but not expanded.
Result<std::vector<Range>> parse_ranges(std::string_view ranges, std::string_view whole) {
  std::vector<Range> out;
  size_t start = 0;
  while (start <= ranges.size()) {
    size_t comma = ranges.find(',', start);
    std::string_view item = ranges.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    size_t dash = item.find('-');
    std::string_view lo = item.substr(0, dash);
    std::string_view hi = dash == std::string_view::npos ? lo : item.substr(dash + 1);
    if (!all_digits(lo) || !all_digits(hi) || lo.size() > 18 || hi.size() > 18)
      return bad(whole, "'" + std::string(item) + "' is not a number or a range like 01-04");
    Range r{std::stoull(std::string(lo)), std::stoull(std::string(hi)), lo.size()};
    if (r.last < r.first) return bad(whole, "range '" + std::string(item) + "' runs backwards");
    out.push_back(r);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// One comma-free item: texts and bracket groups in turn, "rack" [1-2] "-n" [01-02] "".
struct Pattern {
  std::vector<std::string_view> texts;      // one more than brackets
  std::vector<std::vector<Range>> brackets;
};

Result<Pattern> parse_item(std::string_view item, std::string_view whole) {
  Pattern p;
  for (;;) {
    size_t open = item.find('[');
    if (item.find(']') < open) return bad(whole, "unbalanced ']'");
    p.texts.push_back(item.substr(0, open));
    if (open == std::string_view::npos) return p;
    size_t close = item.find(']', open);
    if (close == std::string_view::npos) return bad(whole, "unbalanced '['");
    auto ranges = parse_ranges(item.substr(open + 1, close - open - 1), whole);
    if (!ranges) return ranges.error();
    p.brackets.push_back(std::move(*ranges));
    item = item.substr(close + 1);
  }
}

// The hosts a pattern names: the product over its brackets of the sum over their ranges.
size_t host_count(const Pattern& p, size_t cap) {
  size_t count = 1;
  for (const auto& ranges : p.brackets) {
    size_t in_bracket = 0;
    for (const auto& r : ranges) {
      const unsigned long long span = r.last - r.first;
      in_bracket = capped_add(in_bracket, span >= cap ? cap : static_cast<size_t>(span) + 1, cap);
    }
    count = capped_multiply(count, in_bracket, cap);
  }
  return count;
}

// Appends the pattern's names in order, an odometer over its brackets (no recursion:
// an item may hold thousands of brackets).
void expand(const Pattern& p, std::vector<std::string>& out) {
  struct Wheel {
    size_t range = 0;
    unsigned long long number = 0;
  };
  std::vector<Wheel> wheels(p.brackets.size());
  for (size_t b = 0; b < wheels.size(); ++b) wheels[b].number = p.brackets[b][0].first;
  for (;;) {
    std::string name(p.texts[0]);
    for (size_t b = 0; b < wheels.size(); ++b) {
      name += fmt::format("{:0{}}", wheels[b].number, p.brackets[b][wheels[b].range].width);
      name += p.texts[b + 1];
    }
    out.push_back(std::move(name));
    size_t b = wheels.size();
    for (; b > 0; --b) {  // turn the last wheel; one that comes round turns the one before
      Wheel& w = wheels[b - 1];
      const auto& ranges = p.brackets[b - 1];
      if (w.number < ranges[w.range].last) {
        ++w.number;
        break;
      }
      if (w.range + 1 < ranges.size()) {
        w.number = ranges[++w.range].first;
        break;
      }
      w = Wheel{0, ranges[0].first};
    }
    if (b == 0) return;
  }
}

}  // namespace

Result<std::vector<std::string>> expand_hostlist(std::string_view expression, size_t max_hosts) {
  if (expression.empty()) return bad(expression, "empty");
  auto items = split_top_level(expression, expression);
  if (!items) return items.error();
  // Every item parsed and counted before a single name is made: a list of a few
  // hundred bytes can name billions of hosts.
  std::vector<Pattern> patterns;
  size_t total = 0;
  for (auto item : *items) {
    if (item.empty()) return bad(expression, "empty host name");
    auto pattern = parse_item(item, expression);
    if (!pattern) return pattern.error();
    total = capped_add(total, host_count(*pattern, max_hosts + 1), max_hosts + 1);
    patterns.push_back(std::move(*pattern));
  }
  if (total > max_hosts)
    return bad(expression, fmt::format("expands to too many hosts (more than {})", max_hosts));
  std::vector<std::string> hosts;
  hosts.reserve(total);
  for (const auto& p : patterns) expand(p, hosts);
  return hosts;
}

}  // namespace aorta::slurm
