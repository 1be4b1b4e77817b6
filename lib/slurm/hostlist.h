// Slurm hostlist expressions, as in SLURM_JOB_NODELIST: "node[01-04,07]",
// "gpu2n[1-3],login1", "rack[1-2]-n[01-02]". Zero padding follows the range's
// first number, as Slurm's own expansion does.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace aorta::slurm {

// A list naming more than max_hosts hosts is refused before any name is made (a typo
// like n[1-999999999], or many ranges in one bracket, must not eat memory).
constexpr size_t kMaxHosts = 1 << 20;
Result<std::vector<std::string>> expand_hostlist(std::string_view expression, size_t max_hosts = kMaxHosts);

}  // namespace aorta::slurm
