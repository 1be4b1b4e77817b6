// The Run Deck's sections in the shapes CVS writes them (reference §4.6.2-4.6.7), for
// dashboards and scripts that already read CVS's aorta_run_deck.json: the
// `deck_results` cell of one-element lists, `{kind, value}` threshold specs, verdict
// rows, the `record` tier, `panels`, `summary`, `deck_profile` and
// `datasets.training_sweep`. run_deck.cc builds our own sections beside them.
#pragma once

#include <map>
#include <string>

#include "metrics/run_metrics.h"
#include "report/run_deck.h"

namespace aorta::report {

// What the deck knows of the run, computed once for its sections.
struct DeckFacts {
  std::string state;  // threshold_state
  std::map<std::string, metrics::ThresholdCheck> verdicts;  // by key, from the same gate the threshold stage ran
  bool accelerator = false;  // NCCL channels and the RCCL branch mean something
};

// CVS's "Metrics source" words: which parser made the numbers, not how it fell back.
std::string cvs_metrics_source(const metrics::RunMetrics* result);

// threshold_specs: {"training.<metric>": {kind, value[, verdict, reason]}} for each
// configured threshold in catalogue order; verdict and reason only when the gate ran.
ordered_json threshold_specs_json(const DeckInput& in, const DeckFacts& facts);

// The `record` tier: the cell's metrics that no threshold gates.
ordered_json record_tier_json();

// One row per configured threshold, keys {threshold, metric, kind, limit, actual,
// status, message}; status pass | fail | not evaluated | record.
ordered_json threshold_verdicts_json(const DeckInput& in, const DeckFacts& facts);

// {"<model id or default>": {"avg_iteration_time_ms": [11.0], ..., "_dimensions": {...},
// "_metric_charts": {...}}}; empty without parsed metrics. `series`: the per-rank series.
ordered_json deck_results_json(const DeckInput& in, const DeckFacts& facts, const ordered_json& series);

// The deck's cards, in the order the page shows them: {id, title}, id = the section's id.
ordered_json panels_json(const ordered_json& deck);

// The verdict and headline in one place: overall status, threshold state, the headline
// metric, the tiers by status, the stages by outcome.
ordered_json summary_json(const ordered_json& deck, const RunRecord& run);

// CVS's profile (aorta.json) as this deck fills it.
ordered_json deck_profile_json(const ordered_json& report);

// datasets.training_sweep: the cell, charts, gates, verdict rows, table and status.
ordered_json training_sweep_json(const ordered_json& deck);

}  // namespace aorta::report
