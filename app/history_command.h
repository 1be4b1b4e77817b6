// aorta_suite history ROOT: the run folders under ROOT as a series (lib/history), on
// the console, as JSON (--output) and as history.html (--html); a CI gate with
// --max-regression against the rolling baseline.
#pragma once

#include "app/cli.h"

namespace aorta::app {

int history(const cli::Options& o);

}  // namespace aorta::app
