// Contract tests: node-scraper's DmesgAnalyzer unit tests and fixtures (github
// amd/node-scraper, MIT, commit c3934162; test/unit/plugin/test_dmesg_analyzer.py and
// test/functional/fixtures) through our scanner: the same events, contents and counts.
// Expectations are node-scraper's own asserts, or worked out by hand from its table.
#include "job/kernel_events.h"

#include <map>
#include <chrono>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "job/kernel_patterns.h"
#include "test_paths.h"  // AORTA_SOURCE_DIR

namespace aorta::job {
namespace {

constexpr KernelEventRules kNodeScraper{false, true};      // its table alone, unknown errors on
constexpr KernelEventRules kKnownOnly{false, false};        // check_unknown_dmesg_errors=False

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(AORTA_SOURCE_DIR) + "/tests/data/dmesg/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A fixture (saved with CRLF line ends) through the whole scanner, all of it in the window.
std::vector<KernelLogMatch> scan_fixture(const std::string& name, KernelEventRules rules) {
  return scan_kernel_log("node-a", fixture(name), 0, 4e9, rules);
}

std::vector<std::string> messages(const std::vector<KernelLogMatch>& events) {
  std::vector<std::string> out;
  for (const auto& e : events) out.push_back(e.message);
  return out;
}

std::string err(const std::string& level, const std::string& text) {
  return "kern  :" + level + " : 2024-10-07T10:17:15,145363-04:00 " + text;
}

// node-scraper's 57 ERROR_REGEX entries (grep -c 'ErrorRegex(' over its table), all here.
TEST(KernelEvents, TheWholeNodeScraperTable) { EXPECT_EQ(node_scraper_patterns().size(), 57u); }

// test_unknown_errors: 8 events, named ones first in table order, then the unknown
// lines by level, identical ones collapsed with a count.
TEST(KernelEvents, UnknownErrorsByLevel) {
  const std::vector<std::string> window = {
      err("err  ", "oom_kill_process"),      err("err  ", "amdgpu: qcm fence wait loop timeout expired"),
      err("err  ", "unknown error"),         err("err  ", "unknown error"),
      err("err  ", "unknown error"),         err("err  ", "amdgpu: Fatal error during GPU init"),
      err("crit  ", "unknown crit"),         err("emerg  ", "unknown emerg"),
      err("alert  ", "unknown alert"),       err("err  ", "amdgpu: Failed to disallow cf state"),
  };
  auto events = kernel_events(window, kNodeScraper);
  const std::vector<std::tuple<std::string, std::string, int>> expected = {
      {"Out of memory error", "oom_kill_process", 1},
      {"QCM fence timeout", "qcm fence wait loop timeout expired", 1},
      {"Failed to disallow cf state", "amdgpu: Failed to disallow cf state", 1},
      {"Fatal error during GPU init", ": Fatal error during GPU init", 1},
      {"Unknown dmesg error", "unknown error", 3},
      {"Unknown dmesg error", "unknown crit", 1},
      {"Unknown dmesg error", "unknown emerg", 1},
      {"Unknown dmesg error", "unknown alert", 1},
  };
  ASSERT_EQ(events.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(events[i].message, std::get<0>(expected[i])) << i;
    EXPECT_EQ(events[i].content, std::get<1>(expected[i])) << i;
    EXPECT_EQ(events[i].count, std::get<2>(expected[i])) << i;
  }
  EXPECT_EQ(events[4].line, window[2]);  // the first of the three is the one shown
  EXPECT_EQ(kernel_events(window, kKnownOnly).size(), 4u);
  // An info line is never an unknown error.
  EXPECT_TRUE(kernel_events({"kern  :info  : 2024-10-07T10:17:15,145363-04:00 unknown"}, kNodeScraper).empty());
}

// test_page_fault: four amdgpu page-fault blocks, each one event with its following
// amdgpu lines; those lines are not unknown errors.
TEST(KernelEvents, AmdgpuPageFaultBlocks) {
  std::vector<std::string> window;
  auto block = [&](const std::string& dev, const std::string& head, int examples) {
    window.push_back(err("err  ", "amdgpu " + dev + ": amdgpu: " + head));
    for (int i = 0; i < examples; ++i) window.push_back(err("err  ", "amdgpu " + dev + ": amdgpu:   test example 123"));
    for (const char* tail : {"VM_L2_PROTECTION_FAULT_STATUS:0x00000000", "\t Faulty UTCL2 client ID: ABC123 (0x000)",
                             "\t MORE_FAULTS: 0x0", "\t WALKER_ERROR: 0x0", "\t PERMISSION_FAULTS: 0x0",
                             "\t MAPPING_ERROR: 0x0", "\t RW: 0x0"})
      window.push_back(err("err  ", "amdgpu " + dev + ": amdgpu: " + tail));
    window.push_back(err("info ", "TEST TEST"));
  };
  const std::string fault = "(src_id:0 ring:0 vmid:0 pasid:0, for process pid 0 thread pid 0)";
  block("0000:03:00.0", "[mmhub0] no-retry page fault " + fault, 2);
  block("0000:03:00.0", "[gfxhub0] retry page fault " + fault, 2);
  window.push_back(err("err  ", "amdgpu 0003:02:00.0: amdgpu:  [gfxhub0] retry page fault (swpekfwpo"));
  window.push_back(err("info ", "TEST TEST"));
  block("0000:f5:00.0", "[mmhub0] no-retry page fault " + fault, 3);
  auto events = kernel_events(window, kNodeScraper);
  EXPECT_EQ(messages(events), std::vector<std::string>(4, "amdgpu Page Fault"));
  ASSERT_EQ(events.size(), 4u);
  // 1 head + 2 examples + 7 status lines; the last block's head + 10 (the pattern's limit).
  EXPECT_EQ(std::count(events[0].content.begin(), events[0].content.end(), '\n'), 9);
  EXPECT_EQ(std::count(events[3].content.begin(), events[3].content.end(), '\n'), 10);
}

// test_aca: both ACA layouts (aca entry[..] and ACA[01/01]) are one event each.
TEST(KernelEvents, AcaBlocks) {
  std::vector<std::string> first = {err("err  ", "amdgpu 0000:0c:00.0: amdgpu: [Hardware error] Accelerator Check "
                                                  "Architecture events logged")};
  for (const char* f : {"STATUS=0x000000000000000f", "ADDR=0x0", "MISC0=0x0", "IPID=0x0", "SYND=0x0"})
    first.push_back(err("err  ", std::string("amdgpu 0000:0c:00.0: amdgpu: [Hardware error] aca entry[00].") + f));
  EXPECT_EQ(messages(kernel_events(first, kNodeScraper)), std::vector<std::string>{"ACA Error"});
  std::vector<std::string> second = {
      err("err  ", "amdgpu 0000:48:00.0: {1}[Hardware Error]: Accelerator Check Architecture events logged")};
  for (const char* f : {"CONTROL", "STATUS", "ADDR", "MISC", "CONFIG", "IPID", "SYND", "DESTAT", "DEADDR", "CONTROL_MASK"})
    second.push_back(err("err  ", std::string("amdgpu 0000:48:00.0: {1}[Hardware Error]: ACA[01/01].") + f + "=0x0"));
  EXPECT_EQ(messages(kernel_events(second, kNodeScraper)), std::vector<std::string>{"ACA Error"});
}

// test_ras_poison_errors and test_bad_page_threshold.
TEST(KernelEvents, PoisonAndBadPages) {
  const std::vector<std::string> poison = {
      err("err  ", "amdgpu 0000:68:00.0: {14}poison is consumed by client 12, kick off gpu reset flow"),
      err("err  ", "amdgpu 0000:68:00.0: {15}Poison is created"),
      err("info ", "Normal log entry"),
      err("err  ", "amdgpu 0000:01:00.0: poison is consumed by client 5, kick off gpu reset flow"),
      err("err  ", "amdgpu 0000:02:00.0: amdgpu: Poison is created"),
  };
  EXPECT_EQ(messages(kernel_events(poison, kKnownOnly)),
            (std::vector<std::string>{"RAS Poison Consumed", "RAS Poison Consumed", "RAS Poison created",
                                      "RAS Poison created"}));
  const std::vector<std::string> bad_pages = {
      err("err  ", "amdgpu 0000:08:00.0: amdgpu: Saved bad pages 176 reaches threshold value 128"),
      err("err  ", "amdgpu: Saved bad pages 200 reaches threshold value 128"),
  };
  auto events = kernel_events(bad_pages, kKnownOnly);
  EXPECT_EQ(messages(events), std::vector<std::string>(2, "Bad page threshold exceeded"));
  for (const auto& e : events) EXPECT_EQ(e.category, "RAS");
}

// test_fixture_file_ras_detection on dmesg_sample.log; worked out by hand: line 17's
// IO_PAGE_FAULT, line 21's ACPI Error, the ACA block (61-71), 44-46's poison and bad
// pages, the APEI block (47 and 14 more), 60's Error Address; unknown: line 13 alone.
TEST(KernelEvents, NodeScraperSampleFixture) {
  const auto window = lines_of(fixture("dmesg_sample.log"));
  ASSERT_EQ(window.size(), 71u);
  const std::vector<std::string> named = {"I/O Page Fault",     "ACPI Error",          "ACA Error",
                                          "RAS Poison Consumed", "RAS Poison created", "Bad page threshold exceeded",
                                          "RAS Hardware Error", "Error Address"};
  EXPECT_EQ(messages(scan_fixture("dmesg_sample.log", kKnownOnly)), named);
  auto events = scan_fixture("dmesg_sample.log", kNodeScraper);
  ASSERT_EQ(events.size(), named.size() + 1);
  EXPECT_EQ(events.back().message, "Unknown dmesg error");
  EXPECT_EQ(events.back().line + "\r", window[12]);
  EXPECT_EQ(events[6].line + "\r", window[46]);  // the APEI block is reported at its first line
}

// dmesg_sample_with_collapsing.log by hand: 7 oom lines (each a different pid), one
// IO_PAGE_FAULT event of 5, CUSTOM_ERROR_TYPE_1 x5 (five ports), TYPE_2 (one event of
// 3) and APPLICATION_CRASH x3 (three processes) unknown.
TEST(KernelEvents, NodeScraperCollapsingFixture) {
  auto events = scan_fixture("dmesg_sample_with_collapsing.log", kNodeScraper);
  std::map<std::string, int> events_of, matches_of;
  for (const auto& e : events) {
    ++events_of[e.message];
    matches_of[e.message] += e.count;
  }
  EXPECT_EQ(events_of, (std::map<std::string, int>{
                           {"Out of memory error", 7}, {"I/O Page Fault", 1}, {"Unknown dmesg error", 9}}));
  EXPECT_EQ(matches_of, (std::map<std::string, int>{
                            {"Out of memory error", 7}, {"I/O Page Fault", 5}, {"Unknown dmesg error", 11}}));
}

// What CVS adds: its legacy categories as extensions, on lines node-scraper left
// unnamed, each named as CVS names it ("CVS <category> pattern"); its degraded-GPU
// notice as a warning.
TEST(KernelEvents, CvsLegacyExtensionsAndWarnings) {
  const std::vector<std::string> window = {
      err("err  ", "amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!"),
      err("info ", "mlx5_core 0000:41:00.0: NIC Link is Down"),
      err("warn ", "amdgpu: Runlist is getting oversubscribed. Expect reduced ROCm performance."),
      err("info ", "audit: apparmor=\"DENIED\" operation=open segfault"),
  };
  auto events = kernel_events(window);
  // node-scraper's table first, in its order (it names the DENIED line's segfault: CVS drops such
  // lines in its legacy scan only), then the extensions on the lines left.
  EXPECT_EQ(messages(events), (std::vector<std::string>{"Segmentation fault", "GPU Reset", "CVS network pattern",
                                                        "GPU in degraded state"}));
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[2].category, "network");
  EXPECT_FALSE(events[2].warn_only);
  EXPECT_EQ(events[3].category, "oversubscribed");
  EXPECT_TRUE(events[3].warn_only);
  // Without the extensions the NIC and runlist lines are no events.
  EXPECT_EQ(kernel_events(window, kNodeScraper).size(), 2u);
}

// A 1 MiB kernel line (and one of repeated amdgpu prefixes) is scanned, not a stall or
// a crash: PCRE2 runs without recursion and with a match limit.
TEST(KernelEvents, AMegabyteLineIsScanned) {
  const std::vector<std::string> window = {err("err  ", std::string(1 << 20, 'a')),
                                           err("err  ", [] {
                                             std::string s;
                                             while (s.size() < (1u << 20)) s += "amdgpu 0000:03:00.0: amdgpu: aer_cor_status: ";
                                             return s;
                                           }())};
  auto events = kernel_events(window);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].message, "Unknown dmesg error");
  // Matched and shown up to 4 KiB (the kernel writes at most 1 KiB a record).
  // 48 bytes of prefix and time, then 2^20 a's: 4096 - 48 kept, 1048624 - 4096 cut.
  EXPECT_EQ(events[0].content, std::string(4048, 'a') + " [1044528 more bytes not scanned]");
}

}  // namespace
}  // namespace aorta::job
