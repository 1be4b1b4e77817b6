// Contract tests for what a config adds to the scan and for node-scraper's machine-check
// and collapsing rules: node-scraper's DmesgAnalyzer unit tests (github amd/node-scraper,
// MIT, commit c3934162; test/unit/plugin/test_dmesg_analyzer.py, named on each test)
// through our scanner, their inputs and asserts carried over.
#include <chrono>

#include <gtest/gtest.h>

#include "job/kernel_events.h"

namespace aorta::job {
namespace {

using config::KernelLogRules;

std::string x(const std::string& level, const std::string& time, const std::string& text) {
  return "kern  :" + level + ": " + time + " " + text;
}
std::string at(int second) { return "2038-01-19T00:00:" + std::string(second < 10 ? "0" : "") + std::to_string(second) + ",000000+00:00"; }

// node-scraper alone (CVS's legacy extensions off), with the config's rules.
std::vector<KernelLogMatch> scan(const std::vector<std::string>& window, const KernelLogRules& config) {
  return kernel_events(window, {false, config.check_unknown_dmesg_errors, &config});
}

std::vector<std::string> messages(const std::vector<KernelLogMatch>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.message);
  return out;
}

KernelLogRules known_only() {
  KernelLogRules r;
  r.check_unknown_dmesg_errors = false;
  return r;
}

// test_custom_regex_dict_passed_to_analyzer: the config's patterns come first, with
// their own message and category, and node-scraper's table still runs.
TEST(KernelRules, ConfigPatternsComeFirst) {
  auto rules = known_only();
  rules.error_regex = {{R"(custom_error_pattern_\d+)", "Custom Error Pattern", "SW_DRIVER", "CRITICAL"},
                       {R"(another_custom_error_\w+)", "Another Custom Error", "RAS", "ERROR"}};
  const std::vector<std::string> window = {x("err   ", "2026-01-07T10:00:00,000000-06:00", "custom_error_pattern_123"),
                                           x("err   ", "2026-01-07T10:00:01,000000-06:00", "another_custom_error_xyz"),
                                           x("err   ", "2026-01-07T10:00:02,000000-06:00", "oom_kill_process")};
  auto events = scan(window, rules);
  EXPECT_EQ(messages(events), (std::vector<std::string>{"Custom Error Pattern", "Another Custom Error", "Out of memory error"}));
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].category, "SW_DRIVER");
  EXPECT_EQ(events[1].category, "RAS");
  EXPECT_EQ(events[0].content, "custom_error_pattern_123");
  // A line only the config names is no unknown error either (unknown errors on).
  rules.check_unknown_dmesg_errors = true;
  EXPECT_EQ(scan(window, rules).size(), 3u);
  EXPECT_EQ(messages(scan(window, KernelLogRules{})),
            (std::vector<std::string>{"Out of memory error", "Unknown dmesg error", "Unknown dmesg error"}));
}

// Review of issue 43: a search that gives up (PCRE2's match limit, here a config pattern
// that backtracks exponentially) never passes the rest of the window silently: the line
// is an event naming the pattern, and the lines after it are still searched.
TEST(KernelRules, ASearchThatGivesUpIsAnEventNotASilentPass) {
  auto rules = known_only();
  rules.error_regex = {{R"((x+x+)+\d)", "Backtracking pattern", "UNKNOWN", "ERROR"}};
  const std::vector<std::string> window = {x("err   ", at(1), std::string(3000, 'x')),
                                           x("err   ", at(2), "oom_kill_process")};
  auto events = scan(window, rules);
  ASSERT_EQ(events.size(), 2u) << ::testing::PrintToString(messages(events));
  EXPECT_EQ(events[0].message, "Kernel-log scan incomplete: the pattern 'Backtracking pattern' gave up on this line "
                               "(PCRE2's match limit); check the line by hand");
  EXPECT_EQ(events[0].line, window[0]);
  EXPECT_EQ(events[1].message, "Out of memory error");
}

// test_custom_regex_with_event_collapsing: the config's pattern collapses as the table's
// do (num_timestamps 2); test_custom_regex_with_multiline_pattern: one event per line
// matched, and like node-scraper's a config pattern is searched over the window's text,
// so one written to span lines does.
TEST(KernelRules, ConfigPatternsCollapseAndMaySpanLines) {
  auto rules = known_only();
  rules.num_timestamps = 2;
  rules.error_regex = {{"my_custom_driver_error", "Custom Driver Error", "SW_DRIVER", "ERROR"}};
  auto line = [](const std::string& ms, const std::string& text) { return x("err   ", "2026-01-07T10:" + ms + ",000000-06:00", text); };
  auto events = scan({line("00:00", "my_custom_driver_error"), line("00:10", "my_custom_driver_error"),
                      line("00:20", "my_custom_driver_error"), line("02:00", "my_custom_driver_error")},
                     rules);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].count, 4);
  EXPECT_EQ(events[0].timestamps, (std::vector<std::string>{"2026-01-07T10:00:00,000000-06:00", "2026-01-07T10:02:00,000000-06:00"}));
  const std::vector<std::string> block = {line("00:00", "START_ERROR_BLOCK"), line("00:01", "error_detail_line1"),
                                          line("00:02", "error_detail_line2"), line("00:03", "END_ERROR_BLOCK")};
  rules.error_regex = {{"START_ERROR_BLOCK", "Start Error Block", "SW_DRIVER", "ERROR"}};
  EXPECT_EQ(messages(scan(block, rules)), std::vector<std::string>{"Start Error Block"});
  rules.error_regex = {{R"(START_ERROR_BLOCK\n.*error_detail_line1)", "Block", "SW_DRIVER", "ERROR"}};
  events = scan(block, rules);
  ASSERT_EQ(messages(events), std::vector<std::string>{"Block"});
  EXPECT_EQ(events[0].line, block[0]);
  EXPECT_EQ(events[0].content, "START_ERROR_BLOCK\n" + block[1]);
}

// test_exclude_category: RAS dropped; its line is still known, so no unknown error.
TEST(KernelRules, ExcludedCategoriesAreDropped) {
  const std::string t = "2024-10-07T10:17:15,145363-04:00";
  const std::vector<std::string> window = {
      x("err   ", t, "oom_kill_process"), x("err   ", t, "amdgpu: qcm fence wait loop timeout expired"),
      x("err   ", t, "amdgpu: Fatal error during GPU init"),
      x("err   ", t, "amdgpu 0000:c1:00.0: amdgpu: socket: 4, die: 0 1 correctable hardware errors detected in total in gfx block, no user action is needed."),
      x("err   ", t, "amdgpu: Failed to disallow cf state")};
  KernelLogRules rules;
  EXPECT_EQ(scan(window, rules).size(), 5u);
  rules.exclude_category = {"RAS"};
  auto events = scan(window, rules);
  ASSERT_EQ(events.size(), 4u);
  for (const auto& e : events) EXPECT_NE(e.category, "RAS") << e.message;
  // CVS's legacy categories are excluded by the category CVS files them under.
  const std::vector<std::string> nic = {x("info  ", t, "mlx5_core 0000:41:00.0: NIC Link is Down")};
  rules.exclude_category = {"NETWORK"};
  EXPECT_EQ(kernel_events(nic, {true, true, nullptr}).size(), 1u);
  EXPECT_TRUE(kernel_events(nic, {true, true, &rules}).empty());
}

// test_event_collapsing_within_interval, _with_different_intervals, test_num_timestamps_pruning:
// every repeat counts; a repeat's time is listed only when 60 s (the interval) or more
// from every time listed; the first and last num_timestamps are kept.
TEST(KernelRules, RepeatsCollapseWithTheirTimes) {
  auto oom = [](const std::string& hm) { return x("err   ", "2026-01-07T10:" + hm + ",000000-06:00", "oom_kill_process"); };
  auto events = scan({oom("00:00"), oom("00:30"), oom("00:50"), oom("02:00"), oom("04:00")}, known_only());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].count, 5);
  EXPECT_EQ(events[0].timestamps, (std::vector<std::string>{"2026-01-07T10:00:00,000000-06:00", "2026-01-07T10:02:00,000000-06:00",
                                                            "2026-01-07T10:04:00,000000-06:00"}));
  const std::vector<std::string> io = {x("err   ", "2026-01-07T10:00:00,000000-06:00", "IO_PAGE_FAULT"),
                                       x("err   ", "2026-01-07T10:00:10,000000-06:00", "IO_PAGE_FAULT"),
                                       x("err   ", "2026-01-07T10:00:20,000000-06:00", "IO_PAGE_FAULT"),
                                       x("err   ", "2026-01-07T10:00:30,000000-06:00", "IO_PAGE_FAULT")};
  auto rules = known_only();
  rules.interval_to_collapse_event = 5;
  EXPECT_EQ(scan(io, rules)[0].timestamps.size(), 4u);
  rules.interval_to_collapse_event = 100;
  EXPECT_EQ(scan(io, rules)[0].timestamps.size(), 1u);
  std::vector<std::string> ten;
  for (int i = 0; i < 10; ++i) ten.push_back(oom((i < 5 ? "0" : "") + std::to_string(i * 2) + ":00"));
  events = scan(ten, known_only());
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].count, 10);
  std::vector<std::string> minutes;
  for (const auto& t : events[0].timestamps) minutes.push_back(t.substr(14, 2));
  EXPECT_EQ(minutes, (std::vector<std::string>{"00", "02", "04", "14", "16", "18"}));
  // The failure says how many and when.
  events[0].host = "node-a";
  EXPECT_EQ(kernel_event_text(events[0]),
            "ERROR - Failure pattern *** " + ten[0] + " *** seen in Dmesg on node node-a: Out of memory error (10 times; at "
            "2026-01-07T10:00:00,000000-06:00, 2026-01-07T10:02:00,000000-06:00, 2026-01-07T10:04:00,000000-06:00, "
            "2026-01-07T10:14:00,000000-06:00, 2026-01-07T10:16:00,000000-06:00, 2026-01-07T10:18:00,000000-06:00)");
  events = scan({ten[0]}, known_only());
  events[0].host = "node-a";
  EXPECT_EQ(kernel_event_text(events[0]), "ERROR - Failure pattern *** " + ten[0] + " *** seen in Dmesg on node node-a: Out of memory error");
}

// test_ignore_match_rules_skips_matching_lines, _scoped_by_message.
TEST(KernelRules, IgnoreRulesByLineAndMessage) {
  auto rules = known_only();
  rules.error_regex = {{R"(dummy plugin error on node \w+)", "Dummy Plugin Error", "SW_DRIVER", "ERROR"}};
  rules.ignore_match_rules = {{"node alpha", std::nullopt, std::nullopt, std::nullopt}};
  auto events = scan({x("err   ", at(0), "dummy plugin error on node alpha"), x("err   ", at(1), "dummy plugin error on node alpha"),
                      x("err   ", at(2), "dummy plugin error on node beta")},
                     rules);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].content, "dummy plugin error on node beta");

  rules.error_regex = {{"dummy error alpha", "Dummy Error Alpha", "SW_DRIVER", "ERROR"},
                       {"dummy error beta", "Dummy Error Beta", "SW_DRIVER", "ERROR"}};
  rules.ignore_match_rules = {{"dummy error", std::nullopt, std::set<std::string>{"Dummy Error Alpha"}, std::nullopt}};
  EXPECT_EQ(messages(scan({x("err   ", at(0), "dummy error alpha"), x("err   ", at(1), "dummy error beta")}, rules)),
            std::vector<std::string>{"Dummy Error Beta"});
  // match_regex is searched in what matched, not in the line.
  rules.ignore_match_rules = {{std::nullopt, "beta$", std::nullopt, std::nullopt}};
  EXPECT_EQ(messages(scan({x("err   ", at(0), "dummy error alpha"), x("err   ", at(1), "dummy error beta")}, rules)),
            std::vector<std::string>{"Dummy Error Alpha"});
}

std::string hw(int second, const std::string& text, const std::string& level = "emerg ") {
  return x(level, at(second), "[Hardware Error]: " + text);
}
const std::string kCe60 = "CPU:12 (00:00:0) MC60_STATUS[Over|CE|MiscV|-|-|-|SyndV|UECC|-|-|-]: 0xaaa";

// test_ignore_match_rules_mce_banks_and_threshold, _mce_bank_range: a block in an
// ignored bank is no event; banks as ids or ranges.
TEST(KernelRules, IgnoredMceBanks) {
  auto rules = known_only();
  rules.ignore_match_rules = {{std::nullopt, std::nullopt, std::nullopt, std::set<int>{1, 2}}};
  auto events = scan({hw(0, "Corrected error, no action required.", "err   "),
                      hw(0, "Machine Check: CPU0 MC1_STATUS[0xcafe|CE|Misc]: 0x0", "err   "),
                      hw(1, "Machine Check: CPU0 MC2_STATUS[0xfeed|CE|Misc]: 0x0", "err   "), "",
                      hw(2, "Corrected error, no action required.", "err   "),
                      hw(2, "Machine Check: CPU0 MC5_STATUS[0xbeef|CE|Misc]: 0x0", "err   ")},
                     rules);
  ASSERT_EQ(messages(events), std::vector<std::string>{"MCE Corrected Error"});
  EXPECT_NE(events[0].content.find("MC5_STATUS"), std::string::npos);

  rules.ignore_match_rules = {{std::nullopt, std::nullopt, std::nullopt, std::set<int>{6, 7}}};
  events = scan({hw(0, "Machine Check: CPU0 MC6_STATUS[0x1|CE|Misc]: 0x0", "err   "),
                 hw(1, "Machine Check: CPU0 MC7_STATUS[0x2|CE|Misc]: 0x0", "err   "),
                 hw(2, "Corrected error, no action required.", "err   "),
                 hw(2, "Machine Check: CPU0 MC9_STATUS[0x3|CE|Misc]: 0x0", "err   ")},
                rules);
  ASSERT_EQ(messages(events), std::vector<std::string>{"MCE Corrected Error"});
  EXPECT_NE(events[0].content.find("MC9_STATUS"), std::string::npos);
}

// test_hardware_error_block_reports_mce_without_ignore, _not_reported_as_unknown,
// test_orphan_mce_detail_lines_not_reported_as_unknown: a machine-check block is one
// event, its status row; its other rows (emerg, PPIN, IPID, cache level) and the lines
// between them are no unknown errors. Under CVS's defaults too (its legacy "hardware
// error" pattern would name every row, and each emerg row was an unknown error).
TEST(KernelRules, AMachineCheckBlockIsOneEvent) {
  const std::vector<std::string> block = {
      hw(1, "Corrected error, no action required."), hw(2, kCe60), hw(3, "PPIN: 0xbbbbbbbbbbbbbbbb"),
      hw(4, "IPID: 0x0000000000000001, Syndrome: 0x0000000000000001"),
      hw(5, "cache level: L3/GEN, mem/io: IO, mem-tx: GEN, part-proc: SRC (no timeout)")};
  for (auto events : {scan(block, KernelLogRules{}), kernel_events(block)}) {
    ASSERT_EQ(messages(events), std::vector<std::string>{"MCE Corrected Error"});
    EXPECT_EQ(events[0].content, "[Hardware Error]: " + kCe60);
    EXPECT_EQ(events[0].line, block[1]);
  }
  std::vector<std::string> with_notice = block;
  with_notice.insert(with_notice.begin(), x("info  ", at(0), "mce: [Hardware Error]: Machine check events logged"));
  with_notice.insert(with_notice.begin() + 3, x("emerg ", at(3), "amdgpu 0000:de:ad.0: amdgpu: dummy notice inside block"));
  with_notice.push_back(x("err   ", at(10), "unrelated plugin failure"));
  KernelLogRules rules;
  rules.ignore_match_rules = {{std::nullopt, std::nullopt, std::nullopt, std::set<int>{60, 61, 62, 63}}};
  auto events = scan(with_notice, rules);
  ASSERT_EQ(messages(events), std::vector<std::string>{"Unknown dmesg error"});
  EXPECT_EQ(events[0].content, "unrelated plugin failure");
  // Orphan rows (the window began after the status row) are no unknown errors either.
  events = scan({block[3], block[4], with_notice.back()}, KernelLogRules{});
  ASSERT_EQ(messages(events), std::vector<std::string>{"Unknown dmesg error"});
  EXPECT_EQ(events[0].content, "unrelated plugin failure");
}

// test_mce_interleave_pattern_suppresses_block_with_ignored_banks and
// test_mce_match_content_is_single_status_line: blocks with warn lines and blanks
// between their rows; only the block outside the ignored banks is an event, its
// content its status row alone.
TEST(KernelRules, InterleavedAndAdjacentMachineCheckBlocks) {
  KernelLogRules rules;
  rules.ignore_match_rules = {{std::nullopt, std::nullopt, std::nullopt, std::set<int>{60, 61, 62, 63}}};
  rules.error_regex = {{"dummy_mce_worker hogged CPU", "Dummy Workqueue Hog", "SW_DRIVER", "ERROR"}};
  auto events = scan({x("info  ", at(0), "mce: [Hardware Error]: Machine check events logged"),
                      hw(1, "Corrected error, no action required."), hw(2, kCe60),
                      x("warn  ", at(3), "workqueue: dummy_mce_worker hogged CPU for >10000us 5 times, consider switching to WQ_UNBOUND"),
                      hw(4, "PPIN: 0xbbbbbbbbbbbbbbbb"), hw(5, "IPID: 0x0000000000000001, Syndrome: 0x0000000000000001"), "",
                      hw(6, "cache level: L3/GEN, mem/io: IO, mem-tx: GEN, part-proc: SRC (no timeout)"),
                      x("info  ", at(7), "mce: [Hardware Error]: Machine check events logged"),
                      hw(8, "Corrected error, no action required."),
                      hw(9, "CPU:24 (00:00:0) MC60_STATUS[Over|CE|MiscV|-|-|-|SyndV|UECC|-|-|-]: 0xbbb"),
                      hw(10, "PPIN: 0xcccccccccccccccc"), x("err   ", at(11), "dummy harness fault outside mce blocks")},
                     rules);
  ASSERT_EQ(messages(events), (std::vector<std::string>{"Dummy Workqueue Hog", "Unknown dmesg error"}));
  EXPECT_EQ(events[1].content, "dummy harness fault outside mce blocks");

  rules.error_regex.clear();
  rules.check_unknown_dmesg_errors = false;
  events = scan({hw(0, "Corrected error, no action required."), hw(1, "CPU:72 (00:00:0) MC60_STATUS[Over|CE|MiscV|-|-|-|SyndV|UECC|-|-|-]: 0xaaa"),
                 hw(2, "Corrected error, no action required."), hw(3, "CPU:29 (00:00:0) MC49_STATUS[Over|CE|MiscV|-|-|-|SyndV|UECC|-|-|-]: 0xbbb"),
                 hw(4, "Corrected error, no action required."), hw(5, "CPU:8 (00:00:0) MC60_STATUS[Over|CE|MiscV|-|-|-|SyndV|UECC|-|-|-]: 0xccc")},
                rules);
  ASSERT_EQ(messages(events), std::vector<std::string>{"MCE Corrected Error"});
  EXPECT_EQ(events[0].content, "[Hardware Error]: CPU:29 (00:00:0) MC49_STATUS[Over|CE|MiscV|-|-|-|SyndV|UECC|-|-|-]: 0xbbb");
}

// A block's status row, 20,000 ordinary lines, then one more of its rows: node-scraper
// asks of every line between whether a row comes later; answered in one pass, the scan
// stays linear (asked by searching ahead each time, this took a minute).
TEST(KernelRules, AMachineCheckBlockWithFarApartRowsIsScannedInOnePass) {
  std::vector<std::string> window = {hw(0, kCe60)};
  for (int i = 0; i < 20000; ++i) window.push_back(x("info  ", at(1), "eth0: link up " + std::to_string(i)));
  window.push_back(hw(2, "PPIN: 0xbbbbbbbbbbbbbbbb"));
  window.push_back(x("err   ", at(3), "unrelated plugin failure"));
  const auto start = std::chrono::steady_clock::now();
  auto events = scan(window, KernelLogRules{});
  // Linear: well under a second here; searching ahead from every line took 64 s.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  // The ordinary lines and the PPIN row belong to the block: one event, and the err line after it.
  ASSERT_EQ(messages(events), (std::vector<std::string>{"MCE Corrected Error", "Unknown dmesg error"}));
  EXPECT_EQ(events[1].content, "unrelated plugin failure");
}

}  // namespace
}  // namespace aorta::job
