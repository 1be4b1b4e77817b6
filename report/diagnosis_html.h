// The HTML report's Diagnosis section (diagnosis_bars.h): every rank's own figures in
// one table (any parser, a CPU run's ranks too), then each rank's mean GEMM (or
// compute) kernel time and each gated collective type's bus bandwidth at its largest
// message size, as bars against the ranks' median labelled in us and GB/s, as inline
// SVG with no script and no inline style (Jenkins' CSP keeps it); then the outliers'
// reasons.
#pragma once

#include <ostream>

#include "metrics/run_metrics.h"

namespace aorta::report {

// Nothing without ranks; the table and one sentence (no_diagnosis) when no rank has a
// GPU-timeline diagnosis; one sentence in place of the compute bars when fewer than
// metrics::kMinRanks ranks have compute kernels.
void write_diagnosis_html(const metrics::RunMetrics& run, std::ostream& out);

}  // namespace aorta::report
