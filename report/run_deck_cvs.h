// The Run Deck's sections in the shapes CVS writes them (reference §4.6.2-4.6.7; CVS's
// aorta_rundeck.py, aorta_thresholds.py and its training-sweep cell builder), for
// dashboards and scripts that already read CVS's aorta_run_deck.json: the
// `deck_results` cell of one-element lists, `{kind, value}` threshold specs, verdict
// rows, the `record` tier, `datasets.training_sweep`, `panels`, `summary` and
// `deck_profile`. run_deck.cc builds our own sections and these beside them.
#pragma once

#include <map>
#include <string>

#include "metrics/run_metrics.h"
#include "metrics/threshold_catalogue.h"
#include "report/run_deck.h"

namespace aorta::report {

// What the deck knows of the run, computed once for its sections.
struct DeckFacts {
  std::string state;  // threshold_state
  std::map<std::string, job::SubTest> verdicts;  // by threshold key: the gate stage's recorded sub-tests
  bool accelerator = false;  // NCCL channels and the RCCL branch mean something
};

// A configured threshold's status, the one every section shows: the gate's recorded
// verdict (pass | fail) when it ran, else "not evaluated" (enforced, an earlier stage
// failed) or "record" (enforce_thresholds: false).
std::string gate_status(const DeckFacts& facts, const std::string& key);
// The gate's recorded message for `key` (empty when it passed or did not run).
std::string gate_message(const DeckFacts& facts, const std::string& key);

// The run card's "Metrics source": what read the traces, in CVS's words where they are
// true ("Aorta TraceLens Excel reports", "Basic raw-trace scan"), else our own parser's
// name (never "TraceLens on raw traces": TraceLens reads no raw trace here).
std::string cvs_metrics_source(const metrics::RunMetrics* result);

// CVS's stage labels (its STAGE_LABELS): the labels of the stages given, in their order.
nlohmann::ordered_json session_lifecycle_labels(const std::vector<const stages::StageSpec*>& stages);

// threshold_specs: {"training.<metric>": {kind, value[, verdict, reason]}} for each
// configured threshold in catalogue order; verdict and reason only when the gate ran.
nlohmann::ordered_json threshold_specs_json(const DeckInput& in, const DeckFacts& facts);

// The `record` tier: the cell's metrics that no threshold gates.
nlohmann::ordered_json record_tier_json();

// One row per configured threshold, keys {threshold, metric, kind, limit, actual,
// status, message}; metric without the training. prefix, as CVS writes it.
nlohmann::ordered_json threshold_verdicts_json(const DeckInput& in, const DeckFacts& facts);

// {"<cell id>": {"avg_iteration_time_ms": [11.0], ..., "_dimensions": {...},
// "_metric_charts": {...}}} from our cell (cells[0]) and per-rank series; empty
// without parsed metrics.
nlohmann::ordered_json deck_results_json(const nlohmann::ordered_json& cells, const nlohmann::ordered_json& series);

// datasets.training_sweep as CVS's cell builder makes it: cells with `tiers` and
// highlighted `metrics`, gate_matrix rows, the per-rank series, `results_table` (the
// profile's columns, run_deck.cc), the overall status and the profile's orders.
nlohmann::ordered_json training_sweep_json(const nlohmann::ordered_json& deck, const DeckFacts& facts, nlohmann::ordered_json results_table);

// The deck's cards, in the order the page shows them: {id, title}, id = the section's id.
nlohmann::ordered_json panels_json(const nlohmann::ordered_json& deck);

// The verdict and headline in one place: overall status, threshold state, the headline
// metric, the tiers by status, the stages by outcome.
nlohmann::ordered_json summary_json(const nlohmann::ordered_json& deck, const RunRecord& run);

// CVS's profile (aorta.json) as this deck fills it.
nlohmann::ordered_json deck_profile_json(const nlohmann::ordered_json& report);

}  // namespace aorta::report
