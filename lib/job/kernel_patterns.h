// The kernel-log pattern tables as data: AMD node-scraper's DmesgAnalyzer table (what
// CVS runs by default) and CVS's legacy categories, which CVS adds as extensions.
#pragma once

#include <vector>

namespace aorta::job {

struct KernelPattern {
  const char* regex;     // PCRE2 syntax
  const char* message;   // the event's name
  const char* category;  // node-scraper's EventCategory, or the legacy category
  bool warning = false;  // node-scraper's EventPriority.WARNING (CVS still fails on it)
  bool ignore_case = false;
  bool multi_line = false;  // may span lines: searched over the window's text, not line by line
};

// node-scraper's ERROR_REGEX, in its order (its events come out in this order).
const std::vector<KernelPattern>& node_scraper_patterns();

// CVS's legacy categories (gpu_reset, crash, fault, ...): case-blind, one line each.
// The warn-only ones (a degraded GPU) are notes, never failures.
struct LegacyPattern {
  const char* category;
  const char* regex;
  bool warn_only;
  const char* cvs_category;  // node-scraper's category CVS files it under (_CVS_DMESG_CATEGORY_MAP)
};
const std::vector<LegacyPattern>& legacy_patterns();

// node-scraper's unknown-error rule: a kern line at err, crit, alert or emerg level
// (`dmesg -x`); group 1 is the text after the time.
inline constexpr const char* kUnknownErrorRegex =
    R"re(kern  :(?:err|crit|alert|emerg)\s+: \d{4}-\d+-\d+T\d+:\d+:\d+,\d+[+-]\d+:\d+ (.*))re";
inline constexpr const char* kUnknownErrorMessage = "Unknown dmesg error";

}  // namespace aorta::job
