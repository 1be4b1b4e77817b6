// node-scraper's DmesgAnalyzer behaviour over the benchmark window's lines: pattern
// events (multi-line blocks included), CVS's legacy extensions, unknown errors by level.
#pragma once

#include <string>
#include <vector>

#include "job/kernel_log.h"
#include "common/pcre_pattern.h"

namespace aorta::job {

// The events of `window` (the window's lines, in order); host is left empty.
std::vector<KernelLogMatch> kernel_events(const std::vector<std::string>& window, KernelEventRules rules = {});

// legacy_patterns() compiled (case-blind), in the same order.
const std::vector<PcrePattern>& compiled_legacy_patterns();

}  // namespace aorta::job
