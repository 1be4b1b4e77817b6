// The metrics history follows: the catalogue's gated rows that `compare` judges (the
// headline times and ratios a threshold file gates), in the catalogue's order.
#pragma once

#include <vector>

#include "metrics/metric_catalogue.h"

namespace aorta::history {

std::vector<const metrics::MetricSpec*> headline_metrics();

}  // namespace aorta::history
