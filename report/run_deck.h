// The Aorta Run Deck (reference §4.6): aorta_run_deck.json (run_deck.cc, its charts in
// run_deck_charts.cc) and .html (run_deck_html.cc). Render-only: it reads the run's
// outcome and never changes pass or fail.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "config/variant.h"
#include "metrics/compare.h"
#include "metrics/run_metrics.h"
#include "result_json/metrics_json.h"
#include "report/run_record.h"
#include "stages/stage.h"

namespace aorta::report {

struct DeckInput {
  const RunRecord* run = nullptr;
  const config::Variant* variant = nullptr;
  size_t nodes = 0;
  int gpus_per_node = 0;
  int nccl_channels = 0;
  const metrics::RunMetrics* result = nullptr;  // null: no parsed metrics
  std::string pytest_html;                      // links, relative to the deck
  std::string log_file;
  std::string cluster_file;
  std::string config_file;
  std::string generated_at{};  // empty: now (set by golden-file tests)
  // A run to compare this one with (--baseline): the deck gains a "comparison" section.
  const metrics::RunFigures* baseline = nullptr;
  // The suites' stages in run order (suites::lifecycle()), given by the caller: their
  // labels are the deck's lifecycle, and the one whose sub-tests are thresholds is the
  // gate whose recorded verdicts the deck shows.
  std::vector<const stages::StageSpec*> lifecycle{};
  // --history ROOT: the deck gains a "recent_runs" strip of this run's group under ROOT,
  // found by its own aorta_benchmark_report.json (own_report).
  std::filesystem::path history_root{};
  std::optional<std::filesystem::path> own_report{};
};

// The variant's threshold `key` when it is configured (non-null), else null.
const config::Threshold* configured_threshold(const config::Variant& v, const std::string& key);

// The record of the stage that gates on thresholds (its sub-test plan's kind), or
// null when the run has none.
const StageResult* threshold_stage(const DeckInput& in);

// Threshold state: enforced | not evaluated | record-only.
std::string threshold_state(const DeckInput& in);

// Overall status: pass | fail | record (gate not run) | na (no metrics).
std::string overall_status(const DeckInput& in);

nlohmann::ordered_json run_deck_json(const DeckInput& in);
// The page links aorta_run_deck.css beside it: run_deck_stylesheet().
void write_run_deck_html(const nlohmann::ordered_json& deck, std::ostream& out);
std::string run_deck_stylesheet();

}  // namespace aorta::report
