// aorta_suite analyze TRACE_DIR: the metrics of profiler traces already on disk.
#pragma once

#include "app/cli.h"

namespace aorta::app {

int analyze(const cli::Options& o);

}  // namespace aorta::app
