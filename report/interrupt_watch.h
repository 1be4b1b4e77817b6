// The listener's bookkeeping of the run's first signal (SIGINT, SIGTERM, SIGHUP),
// decided from when tests started and ended, never from what their texts say: the
// stage that was running when the signal came and failed is the interruption's one
// failure (it was stopped); otherwise the reports get a failed run_interrupted record
// of their own, so they agree with the exit status 1.
#pragma once

#include <optional>
#include <string>

#include "job/outcome.h"
#include "report/run_record.h"

namespace aorta::report {

class InterruptWatch {
 public:
  // A test starts; `signalled`: a signal has come.
  void test_started(bool signalled) { started_signalled_ = signalled; }
  // A stage's test ended with `outcome` (sub-tests are not stages: not counted);
  // `kept_from_starting`: the signal kept it from starting (StageResult's flag), so it
  // counts as not started; a stage gated or skipped by configuration after it does not.
  void stage_ended(bool signalled, job::Outcome outcome, bool kept_from_starting = false);
  // The run_interrupted record the reports need for the signal `signal` (SIGTERM ...)
  // now: none while no signal came, when the stage it stopped failed, or once made.
  std::optional<StageResult> late_record(const std::string& signal);

 private:
  bool started_signalled_ = false;  // the test running now started after the signal
  bool stopped_stage_failed_ = false;
  int not_started_ = 0;  // stages the signal kept from starting
  bool recorded_ = false;
};

}  // namespace aorta::report
