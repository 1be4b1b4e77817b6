// The reports a run rewrites after each stage, so that a run killed outright (SIGKILL
// from ctest's TIMEOUT, the OOM killer, a cancelled CI job: nothing runs after it)
// still leaves on disk what had finished. They carry one failed testcase more,
// run_incomplete, so a dashboard that reads them never shows a killed run green; the
// final reports, written when the program ends, replace them.
#pragma once

#include <string>
#include <vector>

#include "report/outputs.h"
#include "report/run_record.h"

namespace aorta::report {

// The record every progress report adds: failed, naming the last stage that finished.
StageResult incomplete_record(const std::string& finished);

// Of the outputs named, those rewritten after each stage: the JUnit file (what CI
// reads) and the HTML report (what people open). The rest are written once, at the end.
std::vector<std::string> progress_outputs(const std::vector<std::string>& names);

// Removes what only the progress reports wrote (run_incomplete's Full Log page): files
// the final reports did not write again. Nothing is removed when a final output failed,
// so a progress report stays where its final one could not be written.
void remove_progress_leftovers(const ReportFiles& progress, const ReportFiles& final_reports);

}  // namespace aorta::report
