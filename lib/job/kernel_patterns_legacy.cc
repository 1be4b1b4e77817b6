// CVS's legacy kernel-log categories (reference 1.7), kept as CVS keeps them: its
// node-scraper path adds them to node-scraper's table as extensions.
#include "job/kernel_patterns.h"

namespace aorta::job {

const std::vector<LegacyPattern>& legacy_patterns() {
  // CVS files each under a node-scraper category (exclude_category compares it); the
  // degraded-GPU notice is no pattern of CVS's node-scraper path: UNKNOWN.
  // Specific categories first, so a page fault is named "fault" rather than caught
  // by crash's broad \bfault\b.
  static const std::vector<LegacyPattern> kPatterns = {
      {"gpu_reset", "GPU reset begin|GPU hang|cp might be in an unrecoverable state|fence wait loop timeout expired", false, "RAS"},
      {"test_fail", "Test failure", false, "APPLICATION"},
      {"fault", "no-retry page fault|Illegal register access|PROTECTION_FAULT_STATUS", false, "SW_DRIVER"},
      {"driver",
       "Queue preemption failed for queue|Failed to evict process queues|No more SDMA queue to allocate|amdgpu: process pid",
       false, "SW_DRIVER"},
      {"hardware",
       R"re(hardware error|hardware fail|ras error|(?:uncorrectable|correctable err)(?!.*initialized)|EDAC (?:MC\d+: \d+ [CU]E |DEVICE\d+: [CU]E: ))re",
       false, "RAS"},
      {"network", "NIC Link is Down|link is down|ib_uverb|CQE|queue catastrophic|CQ error", false, "NETWORK"},
      {"crash",
       R"re(crashed|Traceback|cut here|Bug:|Call Trace|RIP:|end trace|amdgpu: Fatal error|segfault|show_stack|dump_stack|\bfault\b)re",
       false, "SW_DRIVER"},
      {"oversubscribed", "Runlist is getting oversubscribed|Expect reduced ROCm performance", true, "UNKNOWN"},
  };
  return kPatterns;
}

}  // namespace aorta::job
