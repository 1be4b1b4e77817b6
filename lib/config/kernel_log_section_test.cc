// The variant's kernel_log block: node-scraper's analyzer args by their names, every
// pattern compiled at load, each mistake named by file, key and element.
#include "config/kernel_log_section.h"

#include <gtest/gtest.h>

#include "config/shipped.h"
#include "config/variant_loader.h"
#include "tests/temp_dir.h"

namespace aorta::config {
namespace {

// The shipped default with `kernel_log` set to block, loaded as a run would load it.
struct Loaded {
  aorta::testing::TempDir dir;
  VariantLoad load;
  std::vector<std::string> errors;  // "key: message", the file said once
};

std::unique_ptr<Loaded> load_with(const json& block) {
  auto out = std::make_unique<Loaded>();
  const auto file = out->dir.path() / kDefaultVariant;
  EXPECT_TRUE(copy_shipped_config(kDefaultVariant, file).ok());
  EXPECT_TRUE(copy_shipped_config("local_cpu_threshold.json", out->dir.path() / "local_cpu_threshold.json").ok());
  json doc = json::parse(std::ifstream(file));
  doc["kernel_log"] = block;
  std::ofstream(file) << doc.dump();
  out->load = load_variant(file, {"alice", "/opt/workload"});
  for (const auto& e : out->load.errors) {
    EXPECT_EQ(e.file, file.string());
    out->errors.push_back(e.key + ": " + e.message);
  }
  return out;
}

// node-scraper's own config fixtures' analysis_args (dmesg_plugin_config_custom_regex.json
// and dmesg_plugin_config_ignore_match_rules.json), as one kernel_log block.
TEST(KernelLogConfig, NodeScrapersAnalyzerArgsLoad) {
  auto loaded = load_with(json::parse(R"({
    "check_unknown_dmesg_errors": false, "interval_to_collapse_event": 60, "num_timestamps": 3,
    "exclude_category": ["RAS"],
    "error_regex": [
      {"regex": "CUSTOM_ERROR_TYPE_1.*", "message": "Custom Error Type 1", "event_category": "SW_DRIVER", "event_priority": 4},
      {"regex": "APPLICATION_CRASH: .*", "message": "Application Crash Detected", "event_category": "SW_DRIVER"},
      {"regex": "(?i)custom_warn", "message": "Custom warning", "event_priority": "warning"}],
    "ignore_match_rules": [{"mce_banks": [1, 2]}, {"mce_banks": ["6-7"]},
                           {"line_regex": "CUSTOM_TEST_HARNESS_FAULT: probe alpha", "message": ["Custom Error Type 1"]}]
  })"));
  ASSERT_EQ(loaded->errors, std::vector<std::string>{});
  const auto& k = loaded->load.variant->kernel_log;
  EXPECT_FALSE(k.check_unknown_dmesg_errors);
  EXPECT_EQ(k.exclude_category, std::set<std::string>{"RAS"});
  ASSERT_EQ(k.error_regex.size(), 3u);
  EXPECT_EQ(k.error_regex[0].event_priority, "CRITICAL");  // 4 is CRITICAL
  EXPECT_EQ(k.error_regex[1].event_priority, "ERROR");     // node-scraper's default
  EXPECT_EQ(k.error_regex[2].event_category, "UNKNOWN");   // node-scraper's default
  EXPECT_EQ(k.error_regex[2].event_priority, "WARNING");
  ASSERT_EQ(k.ignore_match_rules.size(), 3u);
  EXPECT_EQ(*k.ignore_match_rules[0].mce_banks, (std::set<int>{1, 2}));
  EXPECT_EQ(*k.ignore_match_rules[1].mce_banks, (std::set<int>{6, 7}));
  EXPECT_EQ(*k.ignore_match_rules[2].line_regex, "CUSTOM_TEST_HARNESS_FAULT: probe alpha");
  EXPECT_EQ(*k.ignore_match_rules[2].message, std::set<std::string>{"Custom Error Type 1"});
  // No block: node-scraper's defaults.
  const KernelLogRules defaults;
  EXPECT_TRUE(defaults.check_unknown_dmesg_errors);
  EXPECT_EQ(defaults.interval_to_collapse_event, 60);
  EXPECT_EQ(defaults.num_timestamps, 3);
}

// Every mistake at once, each naming its key and element: a regex PCRE2 cannot
// compile (with its reason), an unknown key, an unknown category, a bad priority and
// bank range, a rule that would ignore everything.
TEST(KernelLogConfig, EachMistakeIsNamedByKeyAndElement) {
  auto loaded = load_with(json::parse(R"({
    "error_regex": [{"regex": "fine", "message": "ok"},
                    {"regex": "broken(", "message": "m", "category": "RAS"},
                    {"regex": "x", "message": "m", "event_category": "GPU", "event_priority": 7},
                    {"message": "no regex"}],
    "exclude_category": ["IO", "DISK"],
    "ignore_match_rules": [{"message": "I/O Page Fault"}, {"mce_banks": ["7-6", "x"]}, {"match_regex": "[z"}],
    "interval": 30
  })"));
  const auto& e = loaded->errors;
  auto has = [&](const std::string& start, const std::string& part) {
    for (const auto& text : e)
      if (text.rfind(start + ": ", 0) == 0 && text.find(part) != std::string::npos) return true;
    return false;
  };
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"kernel_log.error_regex[1].regex", "does not compile at offset 7: missing closing parenthesis"},
      {"kernel_log.error_regex[1].category", "Unknown key"},
      {"kernel_log.error_regex[2].event_category", "unknown category 'GPU'; node-scraper's are SSH, RAS"},
      {"kernel_log.error_regex[2].event_priority", "INFO, WARNING, ERROR or CRITICAL"},
      {"kernel_log.error_regex[3].regex", "Field required"},
      {"kernel_log.exclude_category[1]", "unknown category \"DISK\""},
      {"kernel_log.ignore_match_rules[0]", "at least one of line_regex, match_regex or mce_banks"},
      {"kernel_log.ignore_match_rules[1].mce_banks[0]", "\"60-63\""},
      {"kernel_log.ignore_match_rules[1].mce_banks[1]", "\"60-63\""},
      {"kernel_log.ignore_match_rules[2].match_regex", "does not compile"},
      {"kernel_log.interval", "Unknown key"}};
  for (const auto& [key, part] : expected) EXPECT_TRUE(has(key, part)) << key << ": " << part;
  EXPECT_EQ(e.size(), 11u) << ::testing::PrintToString(e);
  EXPECT_FALSE(loaded->load.variant.has_value());
  EXPECT_EQ(load_with(json::array())->errors, std::vector<std::string>{"kernel_log: must be an object, got []"});
}

}  // namespace
}  // namespace aorta::config
