#include "job/kernel_mce.h"

#include <charconv>
#include <optional>

#include "common/pcre_pattern.h"

namespace aorta::job {
namespace {

// node-scraper's mce_utils expressions, as it writes them.
const PcrePattern& primary_start() {
  static const PcrePattern k(R"re(\[Hardware Error\]:\s*(?:Corrected error|Uncorrected error|Machine check events logged))re",
                             true);
  return k;
}
const PcrePattern& status_start() {
  static const PcrePattern k(R"re(\bMC\d+_STATUS\[)re", true);
  return k;
}
const PcrePattern& detail_line() {
  static const PcrePattern k(R"re(\[Hardware Error\]:)re");
  return k;
}
const PcrePattern& status_row() {
  static const PcrePattern k(R"re(\[Hardware Error\]:[^\n]*MC\d+_STATUS\[[^\]]*\|(?:CE|UC)\|[^\]]*\][^\n]*)re", true);
  return k;
}
const PcrePattern& incident_line() {
  static const PcrePattern k(
      R"re(\[Hardware Error\]:\s*(?:(?:Corrected error|Uncorrected error|Machine check events logged)|Machine Check:|CPU:?\d|MC\d+_STATUS|PPIN:|IPID:|Syndrome:|cache level:))re",
      true);
  return k;
}

bool primary(const std::string& line) { return primary_start().matches(line); }
bool status_only_start(const std::string& line) { return !primary(line) && status_start().matches(line); }
bool detail(const std::string& line) { return detail_line().matches(line); }
bool incident(const std::string& line) { return incident_line().matches(line); }
bool blank(const std::string& line) { return line.find_first_not_of(" \t\r\n\f\v") == std::string::npos; }

// For each line, whether an incident row comes after it before anything that ends a
// block (node-scraper's _has_mce_incident_line_ahead), found in one pass from the end:
// asked of every line between a block's rows, a forward search each time is quadratic.
std::vector<bool> incident_ahead(const std::vector<std::string>& lines) {
  std::vector<bool> ahead(lines.size(), false);
  bool next = false;  // what the nearest deciding line after this one says
  for (size_t i = lines.size(); i-- > 0;) {
    ahead[i] = next;
    const std::string& line = lines[i];
    if (blank(line)) continue;
    if (primary(line) || status_only_start(line)) next = false;
    else if (incident(line)) next = true;
    else if (detail(line)) next = false;
  }
  return ahead;
}

std::optional<size_t> next_non_blank(const std::vector<std::string>& lines, size_t from) {
  for (size_t i = from + 1; i < lines.size(); ++i)
    if (!blank(lines[i])) return i;
  return std::nullopt;
}

// node-scraper's iter_hardware_error_block_ranges: [start, end) of each incident.
std::vector<std::pair<size_t, size_t>> blocks(const std::vector<std::string>& lines) {
  std::vector<std::pair<size_t, size_t>> out;
  const auto ahead = incident_ahead(lines);
  size_t i = 0;
  while (i < lines.size()) {
    if (!primary(lines[i]) && !status_start().matches(lines[i])) {
      ++i;
      continue;
    }
    const size_t start = i++;
    for (; i < lines.size(); ++i) {
      const std::string& line = lines[i];
      if (blank(line)) {
        const auto next = next_non_blank(lines, i);
        if (next && status_only_start(lines[*next])) break;
      } else if ((detail(line) && !incident(line)) || primary(line) || (!incident(line) && !ahead[i])) {
        break;
      }
    }
    out.emplace_back(start, i);
  }
  return out;
}

const PcrePattern& bank_token() {
  static const PcrePattern k(R"re(\bMC(\d+)_STATUS\b)re", true);
  return k;
}

// A bank's digits as a number; a number past int (no real bank) is none.
std::optional<int> bank_number(std::string_view digits) {
  int value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

}  // namespace

std::set<int> mce_banks_in(std::string_view text) {
  std::set<int> banks;
  size_t from = 0;
  while (auto m = bank_token().search(text, from)) {
    if (auto bank = bank_number(*m->groups[0])) banks.insert(*bank);
    from = m->end;
  }
  return banks;
}

std::optional<int> mce_first_bank(std::string_view text) {
  auto m = bank_token().search(text);
  return m ? bank_number(*m->groups[0]) : std::nullopt;
}

std::set<size_t> mce_known_skip_lines(const std::vector<std::string>& window, const std::set<int>& ignored_banks) {
  std::set<size_t> skip;
  for (const auto& [start, end] : blocks(window)) {
    bool defined = false;  // the block has an MCn_STATUS CE/UC row: its header is no event either
    bool ignored = false;
    for (size_t i = start; i < end; ++i) {
      defined = defined || status_row().matches(window[i]);
      for (int bank : mce_banks_in(window[i])) ignored = ignored || ignored_banks.count(bank);
    }
    for (size_t i = start; i < end; ++i) {
      if (!detail(window[i])) continue;
      // A header is an event only in a block without a status row; any other row only when it is one.
      if (ignored || (primary(window[i]) ? defined : !status_row().matches(window[i]))) skip.insert(i);
    }
  }
  return skip;
}

std::set<size_t> mce_unknown_skip_lines(const std::vector<std::string>& window) {
  std::set<size_t> skip;
  for (const auto& [start, end] : blocks(window))
    for (size_t i = start; i < end; ++i) skip.insert(i);
  for (size_t i = 0; i < window.size(); ++i)
    if (detail(window[i])) skip.insert(i);
  return skip;
}

}  // namespace aorta::job
