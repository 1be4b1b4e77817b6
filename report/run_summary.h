// The run in a few lines, for the console at the end of a run and the end of
// <suite>.log: the verdict, each rank's figures, the run's headline metrics, every
// sub-test as the original prints it (SUBPASS/SUBFAIL with actual and limit), and each
// failed test with its first failure.
#pragma once

#include <string>

#include "metrics/run_metrics.h"
#include "report/run_record.h"

namespace aorta::report {

// result null: the run has no parsed metrics (the table and headline line are left out).
std::string run_summary(const RunRecord& run, const metrics::RunMetrics* result);

}  // namespace aorta::report
