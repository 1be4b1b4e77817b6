#include "config/kernel_log_section.h"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <stdexcept>

#include "common/pcre_pattern.h"

namespace aorta::config {
namespace {

constexpr const char* kBlock = "kernel_log";

std::string at(const std::string& key, size_t index) { return key + "[" + std::to_string(index) + "]"; }

// A pattern that PCRE2 cannot compile is named with PCRE2's reason and offset.
void check_regex(const json& obj, const char* key, const std::string& prefix, std::optional<std::string>& out,
                 ConfigErrors& errors) {
  if (!obj.contains(key)) return;
  std::string text;
  read_string(obj, key, prefix, text, errors);
  if (!obj.at(key).is_string()) return;
  try {
    PcrePattern compiled(text);
    out = text;
  } catch (const std::invalid_argument& e) {
    errors.add(join_key(prefix, key), std::string(e.what()) + "; write it in PCRE2 (Perl) syntax");
  }
}

bool known_category(const std::string& name) {
  const auto& all = kernel_event_categories();
  return std::find(all.begin(), all.end(), name) != all.end();
}

std::string category_list() {
  std::string out;
  for (const auto& c : kernel_event_categories()) out += (out.empty() ? "" : ", ") + c;
  return out;
}

// node-scraper's EventPriority: a name in any case, or its number 1 to 4.
std::optional<std::string> priority_of(const json& value) {
  static const char* kNames[] = {"INFO", "WARNING", "ERROR", "CRITICAL"};
  if (value.is_number_integer()) {
    const auto n = value.get<long long>();
    return n >= 1 && n <= 4 ? std::optional<std::string>(kNames[n - 1]) : std::nullopt;
  }
  if (!value.is_string()) return std::nullopt;
  std::string upper = value.get<std::string>();
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  for (const char* name : kNames)
    if (upper == name) return upper;
  return std::nullopt;
}

// Each element of list that is an object, read with its dotted key; any other is named.
template <typename Read>
void each_object(const json& list, const std::string& key, const char* holding, ConfigErrors& errors, Read read) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].is_object())
      read(list[i], at(key, i));
    else
      errors.add(at(key, i), std::string("must be an object with ") + holding + ", got " + shown(list[i]));
  }
}

KernelErrorRegex read_error_regex(const json& item, const std::string& p, ConfigErrors& errors) {
  reject_unknown_keys(item, p, {"regex", "message", "event_category", "event_priority"}, errors);
  for (const char* required : {"regex", "message"})
    if (!item.contains(required)) errors.add(join_key(p, required), "Field required");
  KernelErrorRegex rule;
  std::optional<std::string> regex;
  check_regex(item, "regex", p, regex, errors);
  read_string(item, "message", p, rule.message, errors);
  read_string(item, "event_category", p, rule.event_category, errors);
  if (!known_category(rule.event_category))
    errors.add(join_key(p, "event_category"),
               "unknown category '" + rule.event_category + "'; node-scraper's are " + category_list());
  if (item.contains("event_priority")) {
    if (auto priority = priority_of(item.at("event_priority")))
      rule.event_priority = *priority;
    else
      errors.add(join_key(p, "event_priority"),
                 "must be INFO, WARNING, ERROR or CRITICAL (or 1 to 4), got " + shown(item.at("event_priority")));
  }
  if (regex) rule.regex = *regex;
  return rule;
}

// A bank id, blanks around it allowed; real machines have at most a few hundred banks.
std::optional<int> bank_number(const std::string& text) {
  const auto begin = text.find_first_not_of(' ');
  if (begin == std::string::npos) return std::nullopt;
  const auto end = text.find_last_not_of(' ') + 1;
  int value = -1;
  auto [stop, ec] = std::from_chars(text.data() + begin, text.data() + end, value);
  if (ec != std::errc() || stop != text.data() + end || value < 0 || value > 100000) return std::nullopt;
  return value;
}

// Bank ids and inclusive ranges ("60-63"), as node-scraper's parse_mce_bank_spec.
std::optional<std::set<int>> banks_of(const json& list, const std::string& key, ConfigErrors& errors) {
  if (!list.is_array()) {
    errors.add(key, "must be a list of bank numbers or ranges such as \"60-63\", got " + shown(list));
    return std::nullopt;
  }
  std::set<int> banks;
  for (size_t i = 0; i < list.size(); ++i) {
    const json& entry = list[i];
    const std::string text = entry.is_string() ? entry.get<std::string>() : entry.dump();
    const size_t dash = text.find('-');
    const auto first = bank_number(text.substr(0, dash));
    const auto last = dash == std::string::npos ? first : bank_number(text.substr(dash + 1));
    if ((!entry.is_string() && !entry.is_number_integer()) || !first || !last || *first > *last) {
      errors.add(at(key, i), "must be a bank number or a range such as \"60-63\", got " + shown(entry));
      continue;
    }
    for (int b = *first; b <= *last; ++b) banks.insert(b);
  }
  return banks;
}

KernelIgnoreRule read_ignore_rule(const json& item, const std::string& p, ConfigErrors& errors) {
  reject_unknown_keys(item, p, {"line_regex", "match_regex", "message", "mce_banks"}, errors);
  if (!item.contains("line_regex") && !item.contains("match_regex") && !item.contains("mce_banks"))
    errors.add(p, "must give at least one of line_regex, match_regex or mce_banks (message only narrows a rule)");
  KernelIgnoreRule rule;
  check_regex(item, "line_regex", p, rule.line_regex, errors);
  check_regex(item, "match_regex", p, rule.match_regex, errors);
  if (item.contains("message")) {
    std::vector<std::string> names;
    const json& m = item.at("message");
    if (m.is_string()) names.push_back(m.get<std::string>());
    else read_string_list(item, "message", p, names, errors);
    rule.message = std::set<std::string>(names.begin(), names.end());
  }
  if (item.contains("mce_banks")) rule.mce_banks = banks_of(item.at("mce_banks"), join_key(p, "mce_banks"), errors);
  return rule;
}

const json* list_at(const json& block, const char* key, ConfigErrors& errors) {
  if (!block.contains(key) || block.at(key).is_null()) return nullptr;
  if (block.at(key).is_array()) return &block.at(key);
  errors.add(join_key(kBlock, key), "must be a list, got " + shown(block.at(key)));
  return nullptr;
}

}  // namespace

const std::vector<std::string>& kernel_event_categories() {
  static const std::vector<std::string> kCategories = {
      "SSH",     "RAS", "IO", "OS",        "PLATFORM",       "APPLICATION", "MEMORY", "STORAGE",   "COMPUTE",
      "FW", "SW_DRIVER", "BIOS", "INFRASTRUCTURE", "NETWORK", "SWITCH", "TELEMETRY", "RUNTIME", "UNKNOWN"};
  return kCategories;
}

void read_kernel_log(const json& doc, KernelLogRules& out, ConfigErrors& errors) {
  if (!doc.contains(kBlock)) return;
  const json& block = doc.at(kBlock);
  if (!block.is_object()) {
    errors.add(kBlock, "must be an object, got " + shown(block));
    return;
  }
  reject_unknown_keys(block, kBlock,
                      {"error_regex", "exclude_category", "ignore_match_rules", "check_unknown_dmesg_errors",
                       "interval_to_collapse_event", "num_timestamps"},
                      errors);
  if (const json* list = list_at(block, "error_regex", errors))
    each_object(*list, join_key(kBlock, "error_regex"), "regex and message", errors,
                [&](const json& item, const std::string& p) { out.error_regex.push_back(read_error_regex(item, p, errors)); });
  if (const json* list = list_at(block, "ignore_match_rules", errors))
    each_object(*list, join_key(kBlock, "ignore_match_rules"), "line_regex, match_regex, message or mce_banks", errors,
                [&](const json& item, const std::string& p) {
                  out.ignore_match_rules.push_back(read_ignore_rule(item, p, errors));
                });
  if (const json* list = list_at(block, "exclude_category", errors))
    for (size_t i = 0; i < list->size(); ++i) {
      const json& name = (*list)[i];
      if (name.is_string() && known_category(name.get<std::string>()))
        out.exclude_category.insert(name.get<std::string>());
      else
        errors.add(at(join_key(kBlock, "exclude_category"), i),
                   "unknown category " + shown(name) + "; node-scraper's are " + category_list());
    }
  read_bool(block, "check_unknown_dmesg_errors", kBlock, out.check_unknown_dmesg_errors, errors);
  read_int(block, "interval_to_collapse_event", kBlock, out.interval_to_collapse_event, errors);
  read_int(block, "num_timestamps", kBlock, out.num_timestamps, errors);
  if (out.interval_to_collapse_event < 0) errors.add("kernel_log.interval_to_collapse_event", "must be 0 or more seconds");
  if (out.num_timestamps < 1) errors.add("kernel_log.num_timestamps", "must be 1 or more");
}

}  // namespace aorta::config
