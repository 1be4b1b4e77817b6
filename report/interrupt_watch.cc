#include "report/interrupt_watch.h"

namespace aorta::report {

void InterruptWatch::stage_ended(bool signalled, job::Outcome outcome, bool kept_from_starting) {
  if (!signalled) return;
  if (!started_signalled_ && outcome == job::Outcome::kFailed) stopped_stage_failed_ = true;
  if (started_signalled_ && outcome == job::Outcome::kSkipped && kept_from_starting) ++not_started_;
}

std::optional<StageResult> InterruptWatch::late_record(const std::string& signal) {
  if (signal.empty() || stopped_stage_failed_ || recorded_) return std::nullopt;
  recorded_ = true;
  const std::string named = "interrupted by " + signal;
  StageResult late;
  late.name = late.stage = "run_interrupted";
  late.outcome = job::Outcome::kFailed;
  late.failures.push_back(not_started_ ? "the run was " + named + " between its stages: " + std::to_string(not_started_) +
                                            " not started; its exit status is 1"
                                      : "the run was " + named + " after its stages had run (while its reports were "
                                            "written); its exit status is 1");
  return late;
}

}  // namespace aorta::report
