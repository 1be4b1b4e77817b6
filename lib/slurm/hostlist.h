// Slurm hostlist expressions, as in SLURM_JOB_NODELIST: "node[01-04,07]",
// "gpu2n[1-3],login1", "rack[1-2]-n[01-02]". Zero padding follows the range's
// first number, as Slurm's own expansion does.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace aorta::slurm {

Result<std::vector<std::string>> expand_hostlist(std::string_view expression);

}  // namespace aorta::slurm
