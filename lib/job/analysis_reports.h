// The optional analysis's report folders (TraceLens, GEMM) brought home from the
// head node, as the original's `reports` mode (reference §1.8.2, §1.9): every
// regular file under the folder, links skipped, no pruning, at least as new as a
// floor; written to a staging folder and renamed into place only when every file
// arrived, so a failure leaves no partial tree.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"
#include "job/node_exec.h"

namespace aorta::job {

struct FetchedFolder {
  size_t files = 0;
  uintmax_t bytes = 0;
  std::vector<std::string> older;  // files left behind as older than the floor (an earlier run's)
};

// Copies `remote_dir` (a node-side path) from hosts()[node] to `dest`, which must
// lie inside `output_root` and not exist yet. Files older than `floor` (epoch
// seconds) are left behind. Errors name the node, the folder and the file.
Result<FetchedFolder> fetch_report_folder(NodeExec& exec, size_t node, const std::string& remote_dir, double floor,
                                          const std::filesystem::path& dest, const std::filesystem::path& output_root,
                                          std::chrono::seconds timeout);

}  // namespace aorta::job
