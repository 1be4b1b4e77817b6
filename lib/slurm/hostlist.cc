#include "slurm/hostlist.h"

#include <fmt/format.h>

namespace aorta::slurm {
namespace {

constexpr size_t kMaxHosts = 1 << 20;  // a typo like n[1-999999999] must not eat memory

Error bad(std::string_view expression, const std::string& why) {
  return Error{ErrorCode::kInvalidInput, "hostlist '" + std::string(expression) + "': " + why, ""};
}

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

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

// One bracket's numbers: "01-04,07" -> 01 02 03 04 07.
Result<std::vector<std::string>> expand_ranges(std::string_view ranges, std::string_view whole) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= ranges.size()) {
    size_t comma = ranges.find(',', start);
    std::string_view item = ranges.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    size_t dash = item.find('-');
    std::string_view lo = item.substr(0, dash);
    std::string_view hi = dash == std::string_view::npos ? lo : item.substr(dash + 1);
    if (!all_digits(lo) || !all_digits(hi) || lo.size() > 18 || hi.size() > 18)
      return bad(whole, "'" + std::string(item) + "' is not a number or a range like 01-04");
    unsigned long long a = std::stoull(std::string(lo)), b = std::stoull(std::string(hi));
    if (b < a) return bad(whole, "range '" + std::string(item) + "' runs backwards");
    if (b - a >= kMaxHosts) return bad(whole, "range '" + std::string(item) + "' is too large");
    for (unsigned long long n = a; n <= b; ++n) out.push_back(fmt::format("{:0{}}", n, lo.size()));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// One comma-free item, possibly with several bracket groups.
Result<std::vector<std::string>> expand_item(std::string_view item, std::string_view whole) {
  size_t open = item.find('[');
  if (open == std::string_view::npos) return std::vector<std::string>{std::string(item)};
  size_t close = item.find(']', open);
  if (close == std::string_view::npos) return bad(whole, "unbalanced '['");
  auto numbers = expand_ranges(item.substr(open + 1, close - open - 1), whole);
  if (!numbers) return numbers.error();
  auto rest = expand_item(item.substr(close + 1), whole);
  if (!rest) return rest.error();
  if (numbers->size() * rest->size() > kMaxHosts) return bad(whole, "expands to too many hosts");
  std::vector<std::string> out;
  std::string prefix(item.substr(0, open));
  for (const auto& n : *numbers)
    for (const auto& r : *rest) out.push_back(prefix + n + r);
  return out;
}

}  // namespace

Result<std::vector<std::string>> expand_hostlist(std::string_view expression) {
  if (expression.empty()) return bad(expression, "empty");
  auto items = split_top_level(expression, expression);
  if (!items) return items.error();
  std::vector<std::string> hosts;
  for (auto item : *items) {
    if (item.empty()) return bad(expression, "empty host name");
    auto expanded = expand_item(item, expression);
    if (!expanded) return expanded.error();
    hosts.insert(hosts.end(), expanded->begin(), expanded->end());
    if (hosts.size() > kMaxHosts) return bad(expression, "expands to too many hosts");
  }
  return hosts;
}

}  // namespace aorta::slurm
