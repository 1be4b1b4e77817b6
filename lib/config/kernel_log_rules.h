// The config's kernel-log rules (`kernel_log` in a variant), named as node-scraper's
// DmesgAnalyzerArgs names them: patterns added to its table, categories dropped,
// matches ignored, the unknown-error rule and the collapsing of repeats.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace aorta::config {

// node-scraper's ErrorRegex: a pattern, its event's name, category and priority.
struct KernelErrorRegex {
  std::string regex;  // PCRE2 syntax, checked at load
  std::string message;
  std::string event_category = "UNKNOWN";
  std::string event_priority = "ERROR";  // INFO, WARNING, ERROR or CRITICAL: shown, every event fails as in CVS
};

// node-scraper's ignore rule: every field given must hold for a match to be skipped.
struct KernelIgnoreRule {
  std::optional<std::string> line_regex;   // searched in the line where the match starts
  std::optional<std::string> match_regex;  // searched in the match
  std::optional<std::set<std::string>> message;  // the pattern's message is one of these
  std::optional<std::set<int>> mce_banks;        // the match's MCn_STATUS banks all among these
};

struct KernelLogRules {
  std::vector<KernelErrorRegex> error_regex;  // searched before node-scraper's table
  std::set<std::string> exclude_category;     // events of these categories are dropped
  std::vector<KernelIgnoreRule> ignore_match_rules;
  bool check_unknown_dmesg_errors = true;  // node-scraper's default: unnamed err lines fail
  int interval_to_collapse_event = 60;     // a repeat's time is listed unless within this of one listed
  int num_timestamps = 3;                  // times listed: the first and the last this many
};

// node-scraper's EventCategory names, the values event_category and exclude_category take.
const std::vector<std::string>& kernel_event_categories();

}  // namespace aorta::config
