// The verdict the JSON report states, read from the run's records so far (never
// evaluated again): each configured gate as test_validate_thresholds recorded it, and
// why the run failed in one line, so a dashboard fed from the report can say who and why.
#pragma once

#include "result_json/benchmark_report.h"
#include "stages/stage.h"

namespace aorta::stages {

// Gates: one per configured (non-null) threshold, in the config's order; one the
// thresholds stage did not record is not evaluated (a skipped sub-test saying why).
// Why failed: per failed stage, "<stage>: <its first failure>", the thresholds stage's
// as its failed gates with actual and limit and their subject, a stage an interrupt
// kept from starting with its skip reason; "; " between. Empty when none.
result_json::RunVerdict run_verdict(const StageContext& ctx);

}  // namespace aorta::stages
