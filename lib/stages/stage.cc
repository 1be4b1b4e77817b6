#include "stages/stage.h"

namespace aorta::stages {

StageResult subtest_result(const std::string& stage_test, const std::string& name_part, const std::string& label,
                           const job::SubTest& sub) {
  StageResult record;
  record.stage = stage_test;
  record.name = stage_test + "/" + name_part;
  record.label = label;
  record.subtest = sub;
  record.outcome = sub.outcome;
  if (std::string measured = sub.measured_with_margin(); !measured.empty()) record.log.push_back(measured);
  if (sub.outcome == job::Outcome::kFailed) record.failures.push_back(sub.message);
  if (sub.outcome == job::Outcome::kSkipped) record.skip_reason = sub.message;
  return record;
}

std::string failed_subtests_line(const std::vector<job::SubTest>& subtests, const std::string& what,
                                 const std::string& whats) {
  std::string names;
  size_t failed = 0;
  for (const auto& t : subtests)
    if (t.outcome == job::Outcome::kFailed) names += (failed++ == 0 ? "" : ", ") + t.value;
  if (failed == 0) return "";
  return std::to_string(failed) + " " + (failed == 1 ? what : whats) + " failed: " + names;
}

}  // namespace aorta::stages
