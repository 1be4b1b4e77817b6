// The HTML report's Diagnosis section: each rank's mean GEMM (or compute) kernel time as
// a bar against the ranks' median, labelled in us, as inline SVG with no script and no
// inline style (Jenkins' CSP keeps it), then the outliers' reasons.
#pragma once

#include <ostream>

#include "metrics/run_metrics.h"

namespace aorta::report {

// Nothing when no rank has a GPU-timeline diagnosis; one sentence when fewer than
// metrics::kMinRanks ranks have compute kernels to compare.
void write_diagnosis_html(const metrics::RunMetrics& run, std::ostream& out);

}  // namespace aorta::report
