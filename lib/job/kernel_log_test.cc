#include "job/kernel_log.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace aorta::job
