// Reads a variant's `kernel_log` block (node-scraper's DmesgAnalyzerArgs names): every
// pattern compiled with PCRE2 here, so a bad one is a load error, not a scan's.
#pragma once

#include "config/config_error.h"
#include "config/json_fields.h"
#include "config/kernel_log_rules.h"

namespace aorta::config {

// doc is the whole variant; an absent block leaves the defaults.
void read_kernel_log(const json& doc, KernelLogRules& out, ConfigErrors& errors);

}  // namespace aorta::config
