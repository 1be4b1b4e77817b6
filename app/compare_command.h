// aorta_suite compare BASELINE CANDIDATE: two runs side by side, a CI gate with
// --max-regression.
#pragma once

#include "app/cli.h"

namespace aorta::app {

int compare(const cli::Options& o);

}  // namespace aorta::app
