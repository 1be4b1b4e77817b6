// aorta_suite compare BASELINE CANDIDATE: two runs side by side, a CI gate with
// --max-regression.
#pragma once

#include "app/cli.h"
#include "metrics/compare.h"

namespace aorta::app {

int compare(const cli::Options& o);

// The comparison as `compare` prints it: a note per warning, a row per metric in its
// unit's one format, the diagnosis rows, the step times, and each regressed metric by name.
// A run with --baseline prints it too.
void print_comparison(const metrics::Comparison& c, const metrics::RunFigures& base, const metrics::RunFigures& cand);

}  // namespace aorta::app
