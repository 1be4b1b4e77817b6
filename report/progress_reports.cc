#include "report/progress_reports.h"

#include <algorithm>
#include <filesystem>

namespace aorta::report {

StageResult incomplete_record(const std::string& finished) {
  StageResult incomplete;
  incomplete.name = incomplete.stage = "run_incomplete";
  incomplete.outcome = job::Outcome::kFailed;
  incomplete.failures.push_back(
      "the run had not finished when these reports were written; the last stage to finish was " + finished +
      ". If the run is no longer running, it was killed before its teardown (a CI timeout, the OOM killer, a "
      "cancelled job): check the nodes for its containers and processes, then run it again.");
  return incomplete;
}

std::vector<std::string> progress_outputs(const std::vector<std::string>& names) {
  std::vector<std::string> progress;
  for (const auto& name : names)
    if (name == "junit" || name == "html") progress.push_back(name);
  return progress;
}

void remove_progress_leftovers(const ReportFiles& progress, const ReportFiles& final_reports) {
  if (final_reports.failed()) return;
  const auto& kept = final_reports.written();
  for (const auto& path : progress.written()) {
    if (std::find(kept.begin(), kept.end(), path) != kept.end()) continue;
    std::error_code ignored;  // gone already is as good as removed
    std::filesystem::remove(path, ignored);
  }
}

}  // namespace aorta::report
