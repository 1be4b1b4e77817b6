#include "job/kernel_log.h"

#include <cstdio>

#include <gtest/gtest.h>

#include "common/shell_quote.h"

namespace aorta::job {
namespace {

TEST(KernelLog, CategoriesOfTheOriginal) {
  EXPECT_EQ(classify_kernel_line("amdgpu 0000:c1:00.0: amdgpu: GPU reset begin!")->first, "gpu_reset");
  EXPECT_EQ(classify_kernel_line("python3[123]: segfault at 0 ip")->first, "crash");
  EXPECT_EQ(classify_kernel_line("amdgpu: [gfxhub] no-retry page fault (src_id:0)")->first, "fault");
  EXPECT_EQ(classify_kernel_line("mlx5_core: NIC Link is Down")->first, "network");
  EXPECT_EQ(classify_kernel_line("EDAC MC0: 1 CE memory read error")->first, "hardware");
  EXPECT_FALSE(classify_kernel_line("RAS: correctable errors counter initialized").has_value());
  auto warn = classify_kernel_line("amdgpu: Runlist is getting oversubscribed. Expect reduced ROCm performance.");
  ASSERT_TRUE(warn);
  EXPECT_TRUE(warn->second);
  EXPECT_FALSE(classify_kernel_line("audit: apparmor=\"DENIED\" operation=... segfault").has_value());
  EXPECT_FALSE(classify_kernel_line("IPVS: rr: TCP 10.0.0.1:80 - no destination available").has_value());
  EXPECT_FALSE(classify_kernel_line("EXT4-fs (vda): mounted filesystem").has_value());
  // The original's broad \\bfault\\b also flags this line; kept for compatibility.
  EXPECT_EQ(classify_kernel_line("default fault handler installed")->first, "crash");
}

TEST(KernelLog, IsoTimesAndTheWindow) {
  auto t = iso_line_time("2026-12-01T03:05:07,500000+00:00 x");
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(*t, 1796094307.5);  // date -u -d 2026-12-01T03:05:07 +%s = 1796094307, plus 0.5 s
  auto shifted = iso_line_time("2026-12-01T04:05:07,500000+01:00 x");
  EXPECT_DOUBLE_EQ(*shifted, *t);
  EXPECT_FALSE(iso_line_time("[  12.345] not iso").has_value());
  std::string log =
      "2026-12-01T03:05:00,000000+00:00 amdgpu: GPU reset begin! (before the window)\n"
      "2026-12-01T03:05:07,000000+00:00 amdgpu: GPU hang detected\n"
      "2026-12-01T03:05:08,000000+00:00 all is well\n"
      "2026-12-01T03:09:00,000000+00:00 NIC Link is Down (after the window)\n";
  auto matches = scan_kernel_log("node-b", log, 1796094305.0, 1796094400.0);
  ASSERT_EQ(matches.size(), 1u);
  EXPECT_EQ(matches[0].host, "node-b");
  EXPECT_EQ(matches[0].category, "gpu_reset");
}

// Issue 43 (1): what CVS fails a node for and the legacy table missed, read from
// `dmesg --time-format iso -x` lines (level prefix) inside the window; a benign log passes.
TEST(KernelLog, NodeScraperEventsOfTheDmesgXWindow) {
  auto x = [](const char* level, const char* time, const std::string& text) {
    return std::string("kern  :") + level + " : 2026-12-01T03:05:" + time + ",000000+00:00 " + text + "\n";
  };
  const std::string log =
      x("err  ", "00", "AMD-Vi: Event logged [IO_PAGE_FAULT device=00:14.0] (before the window)") +
      x("err  ", "07", "AMD-Vi: Event logged [IO_PAGE_FAULT device=00:14.0 domain=0x0000]") +
      x("crit ", "08", "EXT4-fs error (device nvme0n1p2): ext4_find_entry:1455: reading directory lblock 0") +
      x("err  ", "09", "Buffer I/O error on dev nvme1n1, logical block 0, async page read") +
      x("err  ", "10", "ACPI BIOS Error (bug): Could not resolve symbol [\\_SB.PCI0], AE_NOT_FOUND") +
      x("info ", "11", "pcieport 0000:00:01.1: pciehp: Slot(3): Link Down") +
      x("warn ", "12", "amdgpu 0000:c1:00.0: amdgpu: WARN: GPU is throttled") +
      x("err  ", "13", "nvme nvme0: I/O 12 QID 3 timeout, aborting") + x("info ", "14", "all is well") +
      x("err  ", "59", "EXT4-fs error (device sda1): after the window");
  auto events = scan_kernel_log("node-b", log, 1796094305.0, 1796094330.0);
  std::vector<std::string> names;
  for (const auto& e : events) names.push_back(e.message);
  EXPECT_EQ(names, (std::vector<std::string>{"I/O Page Fault", "ACPI BIOS Error", "Filesystem corrupted!",
                                             "Error in buffered IO, check filesystem integrity", "PCIe Link Down",
                                             "GPU Throttled", "Unknown dmesg error"}));
  for (const auto& e : events) EXPECT_EQ(e.host, "node-b");
  EXPECT_EQ(events.back().line, "kern  :err   : 2026-12-01T03:05:13,000000+00:00 nvme nvme0: I/O 12 QID 3 timeout, aborting");
  const std::string benign = x("info ", "07", "amdgpu 0000:c1:00.0: amdgpu: SMU is initialized successfully!") +
                             x("notice", "08", "EXT4-fs (nvme0n1p2): mounted filesystem") +
                             x("warn ", "09", "pci 0000:00:01.0: BAR 0: failed to assign");
  EXPECT_TRUE(scan_kernel_log("node-b", benign, 1796094305.0, 1796094330.0).empty());
  EXPECT_NE(dmesg_command().find("dmesg --time-format iso -x;"), std::string::npos);
}

// Issue 43 (1): CVS_DMESG_PARSER as CVS's use_node_scraper_dmesg reads it: stripped
// and lower-cased, its legacy aliases select the dmesg -T minute window, and every other
// value (unset, empty, node-scraper, one CVS does not know) node-scraper's scan.
TEST(KernelLog, BackendFromCvsDmesgParser) {
  for (const char* iso : {"", "node-scraper", "journalctl", "legacyx", "1", "  "})
    EXPECT_EQ(*kernel_log_backend(iso), KernelLogBackend::kIso) << iso;
  EXPECT_EQ(*kernel_log_backend(nullptr), KernelLogBackend::kIso);
  for (const char* legacy : {"legacy", "cvs", "0", "false", "off", "no", "Legacy", " OFF\n", "\tcvs "})
    EXPECT_EQ(*kernel_log_backend(legacy), KernelLogBackend::kLegacy) << legacy;
}

TEST(KernelLog, LegacyMinuteOfTheNodesDate) {
  EXPECT_EQ(legacy_minute("Wed Sep 23 12:00:59\n"), "Wed Sep 23 12:00");
  EXPECT_EQ(legacy_minute("Thu Oct  1 09:05:00"), "Thu Oct  1 09:05");  // %e pads the day with a space
  EXPECT_FALSE(legacy_minute("Wed Sep 23 12:00").has_value());
  EXPECT_FALSE(legacy_minute("Wed/Sep 23 12:00:01'; rm -rf /").has_value());
  EXPECT_FALSE(legacy_minute("").has_value());
  // Read by shape, not by a regular expression: trailing blanks only, letters and digits in their places.
  EXPECT_EQ(legacy_minute("Wed Sep 23 12:00:59 \t\r\n"), "Wed Sep 23 12:00");
  for (const char* bad : {"wed Sep 23 12:00:59", " Wed Sep 23 12:00:59", "Wed Sep 23 12:00:59 x", "Wed Sep 2a 12:00:59",
                          "Wed Sep 23 12-00:59", "Wed Sep 23 12:00:5\n"})
    EXPECT_FALSE(legacy_minute(bad).has_value()) << bad;
}

// The legacy command run for real by bash, dmesg and sudo stood in for by functions:
// awk prints from the first line of the start minute to the first of the end minute,
// and the ALLOWED/DENIED lines are dropped.
TEST(KernelLog, LegacyCommandPrintsTheMinuteWindow) {
  const std::string command = legacy_dmesg_command("Wed Sep 23 12:00", "Wed Sep 23 12:01");
  EXPECT_NE(command.find("sudo -n dmesg -T; fi | awk '/Wed Sep 23 12:00.*/,/Wed Sep 23 12:01.*/'"), std::string::npos)
      << command;
  const std::string fake =
      "dmesg() { printf '%s\\n' '[Wed Sep 23 11:59:58 2026] before' '[Wed Sep 23 12:00:03 2026] GPU reset begin' "
      "'[Wed Sep 23 12:00:30 2026] apparmor=\"DENIED\" x' '[Wed Sep 23 12:01:10 2026] last' "
      "'[Wed Sep 23 12:02:00 2026] after'; }; sudo() { shift; \"$@\"; }; ";
  FILE* pipe = popen(("bash -c " + shell_quote(fake + command)).c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string out;
  char buffer[256];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_EQ(out, "[Wed Sep 23 12:00:03 2026] GPU reset begin\n[Wed Sep 23 12:01:10 2026] last\n");
}

}  // namespace
}  // namespace aorta::job
