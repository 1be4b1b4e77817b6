// The run folder's name inside a SPUR or Slurm job: the job id, as CVS names it
// (<workspace>/cvs_runs/<job id>); outside a job the run id names it (fixtures/session).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"

namespace aorta::slurm {

// Claims `<job id>`, else `<job id>-2`, `<job id>-3` ... (a later run in the same job)
// by making that folder in each of `parents` (the output_dir, and the workspace's
// cvs_runs with one), all new: mkdir is atomic, so two runs at once never share a
// folder. The parents are made when missing and opened as every output folder is
// (common/output_path.h). The name, or an error naming the folder.
Result<std::string> claim_job_run_folder(const std::string& job_id, const std::vector<std::filesystem::path>& parents);

}  // namespace aorta::slurm
