#include "job/kernel_ignore.h"

#include <algorithm>

#include "job/kernel_mce.h"

namespace aorta::job {

KernelIgnoreRules::KernelIgnoreRules(const std::vector<config::KernelIgnoreRule>& rules) {
  for (const auto& r : rules) {
    Rule rule{std::nullopt, std::nullopt, r.message, r.mce_banks};
    if (r.line_regex) rule.line_regex.emplace(*r.line_regex);
    if (r.match_regex) rule.match_regex.emplace(*r.match_regex);
    if (r.mce_banks) banks_.insert(r.mce_banks->begin(), r.mce_banks->end());
    rules_.push_back(std::move(rule));
  }
}

bool KernelIgnoreRules::ignores(std::string_view line, std::string_view match, const std::string& message) const {
  for (const auto& rule : rules_) {
    if (rule.message && !rule.message->count(message)) continue;
    if (rule.mce_banks) {
      // The match's banks, else the first bank its line names.
      std::set<int> banks = mce_banks_in(match);
      if (banks.empty())
        if (auto first = mce_first_bank(line)) banks = {*first};
      if (banks.empty() || !std::includes(rule.mce_banks->begin(), rule.mce_banks->end(), banks.begin(), banks.end()))
        continue;
    }
    if (rule.line_regex && !rule.line_regex->matches(line)) continue;
    if (rule.match_regex && !rule.match_regex->matches(match)) continue;
    return true;
  }
  return false;
}

}  // namespace aorta::job
