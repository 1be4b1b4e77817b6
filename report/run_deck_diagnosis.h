// The Run Deck's Diagnosis section: the HTML report's per-rank bars (diagnosis_bars.h)
// and the outliers' reasons, as `diagnosis` in aorta_run_deck.json and drawn from there.
#pragma once

#include <ostream>

#include "metrics/run_metrics.h"
#include "result_json/metrics_json.h"

namespace aorta::report {

// Null without parsed metrics; a `note` in place of the bars when no rank has a
// GPU-timeline diagnosis.
nlohmann::ordered_json deck_diagnosis_json(const metrics::RunMetrics* result);

// The section of a non-null deck_diagnosis_json.
void deck_diagnosis_html(const nlohmann::ordered_json& diagnosis, std::ostream& out);

}  // namespace aorta::report
