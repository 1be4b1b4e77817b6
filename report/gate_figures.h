// A gate's actual and limit as the HTML report's cells show them, each with its
// metric row's unit (lib/metrics/gate_terms.h): fractions as % ("71.57%", "99%"),
// ratios of like values as a multiple ("1.3000x"), times in ms, bandwidth in GB/s.
// A limit is never rounded (a rounded limit would misstate the gate).
#pragma once

#include <optional>
#include <string>

#include "metrics/gate_terms.h"

namespace aorta::report {

// "92.694 ms", "71.57%", "1.3000x", "5.35 GB/s"; no unit known: the bare value.
std::string gate_actual_text(double actual, std::optional<metrics::MetricUnit> unit);
// "1 ms", "99%", "1.1x", "40 GB/s"; no unit known: the bare value.
std::string gate_limit_text(double limit, std::optional<metrics::MetricUnit> unit);

}  // namespace aorta::report
