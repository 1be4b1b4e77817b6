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
  if (std::string measured = sub.measured(); !measured.empty()) record.log.push_back(measured);
  if (sub.outcome == job::Outcome::kFailed) record.failures.push_back(sub.message);
  if (sub.outcome == job::Outcome::kSkipped) record.skip_reason = sub.message;
  return record;
}

}  // namespace aorta::stages
