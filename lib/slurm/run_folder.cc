#include "slurm/run_folder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include "common/output_path.h"

namespace aorta::slurm {

namespace fs = std::filesystem;

namespace {

// More runs than this in one job is a loop gone wrong, not a benchmark.
constexpr int kMaxRunsPerJob = 1000;

// Made in every parent (true), or in none because one had it (false): the ones made
// before it are removed again, being empty and this run's alone.
Result<bool> make_in_all(const std::vector<FolderHandle>& parents, const std::vector<fs::path>& paths,
                         const std::string& name) {
  for (size_t i = 0; i < parents.size(); ++i) {
    if (::mkdirat(parents[i].fd(), name.c_str(), 0755) == 0) continue;
    const int error = errno;
    for (size_t made = 0; made < i; ++made) ::unlinkat(parents[made].fd(), name.c_str(), AT_REMOVEDIR);
    if (error == EEXIST) return false;
    return Error{ErrorCode::kIo, std::string("cannot create the run's folder: ") + std::strerror(error),
                 (paths[i] / name).string()};
  }
  return true;
}

}  // namespace

Result<std::string> claim_job_run_folder(const std::string& job_id, const std::vector<fs::path>& parents) {
  if (job_id.empty() || job_id.find('/') != std::string::npos || job_id.front() == '.')
    return Error{ErrorCode::kInvalidInput, "the job id '" + job_id + "' cannot name a folder", "SLURM_JOB_ID"};
  std::vector<FolderHandle> handles;
  std::vector<fs::path> distinct;  // one parent given twice (output_dir = <workspace>/cvs_runs) is claimed once
  std::set<std::pair<dev_t, ino_t>> seen;
  for (const auto& parent : parents) {
    auto handle = open_output_folder(parent, true);
    if (!handle) return handle.error();
    struct stat st {};
    if (::fstat(handle->fd(), &st) == 0 && !seen.insert({st.st_dev, st.st_ino}).second) continue;
    handles.push_back(std::move(*handle));
    distinct.push_back(parent);
  }
  for (int run = 1; run <= kMaxRunsPerJob; ++run) {
    const std::string name = run == 1 ? job_id : job_id + "-" + std::to_string(run);
    auto made = make_in_all(handles, distinct, name);
    if (!made) return made.error();
    if (*made) return name;
  }
  return Error{ErrorCode::kInvalidInput,
               "job " + job_id + " already has " + std::to_string(kMaxRunsPerJob) + " run folders (" + job_id + " to " +
                   job_id + "-" + std::to_string(kMaxRunsPerJob) + "); move them away or use another output_dir",
               parents.empty() ? "" : parents.front().string()};
}

}  // namespace aorta::slurm
