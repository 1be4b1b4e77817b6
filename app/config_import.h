// aorta_suite config import FILE.yaml [--output FILE.json]: CVS's legacy test_aorta
// config (aorta_benchmark.yaml) written as our variant JSON and its threshold file,
// then loaded with the run's own loader so the user learns at once whether it runs.
#pragma once

#include "app/cli.h"

namespace aorta::app {

// 0: both files written and the variant loads; 2: refused (the YAML, an existing
// output) or written but not loading yet (each problem named on stderr).
int import_config(const cli::Options& o);

}  // namespace aorta::app
