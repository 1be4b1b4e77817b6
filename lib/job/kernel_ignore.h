// The config's ignore rules (node-scraper's ignore_match_rules), compiled once per scan.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "config/kernel_log_rules.h"
#include "common/pcre_pattern.h"

namespace aorta::job {

class KernelIgnoreRules {
 public:
  explicit KernelIgnoreRules(const std::vector<config::KernelIgnoreRule>& rules);
  // Whether a match of the pattern named `message`, starting on `line`, is skipped:
  // some rule's every field holds (node-scraper's should_ignore_match).
  bool ignores(std::string_view line, std::string_view match, const std::string& message) const;
  // Every bank a rule names: machine-check blocks in them are no events.
  const std::set<int>& banks() const { return banks_; }

 private:
  struct Rule {
    std::optional<PcrePattern> line_regex, match_regex;
    std::optional<std::set<std::string>> message;
    std::optional<std::set<int>> mce_banks;
  };
  std::vector<Rule> rules_;
  std::set<int> banks_;
};

}  // namespace aorta::job
