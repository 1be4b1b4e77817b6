// Every run metric the reports show, in one table: its key, unit, which way is
// better, where its value comes from, how each report shows it and the gate a
// threshold file may set on it. The JSON, the console summaries, the HTML report, the
// Run Deck, compare, the threshold loader and the threshold stage read it; adding a
// metric, gated or not, is one row in metric_catalogue.cc (the gates as a list:
// threshold_catalogue.h).
//
// Only standard headers here: lib/config includes this file (through
// threshold_catalogue.h), and lib/metrics includes lib/config.
#pragma once

#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/gate_subject.h"
#include "metrics/gate_terms.h"

namespace aorta::metrics {

struct RunMetrics;

enum class Better { kLower, kHigher, kNeither };

// The gate column of a metric's row: the threshold a threshold file may set on the
// metric. Its unit and its value are the metric's.
struct GateSpec {
  const char* key;  // in a threshold file's expected_results: "max_avg_iteration_ms"
  ThresholdKind kind;
  int position;         // where reports list the gate among the gates (the Run Deck's tier order), from 0
  const char* tier;     // the Run Deck's gate_matrix entry
  const char* display;  // the gate's name on a chart: "avg iteration time"
  // The original's failure text, byte for byte.
  std::string (*message)(double actual, double limit);
  // Why a configured gate fails when its metric has no value; nullptr: an empty value
  // is not checked and passes (the original's variance of a zero mean).
  const char* unavailable = nullptr;
  // A limit outside min_limit..max_limit is a config error (a slowdown ratio below 1
  // always fails; infinity: no bound).
  double min_limit = 0;
  double max_limit = std::numeric_limits<double>::infinity();
  // A per-rank gate's: the rank its figure is of, named after a failure's text (not
  // the original's gates: CVS's scrapers key on their texts); nullptr: a run-wide figure.
  std::optional<GateSubject> (*subject)(const RunMetrics&) = nullptr;
  // What the figure is of, in parentheses after a failure's text (metric_words.h): an
  // iteration time is the whole profiled window, not a step; nullptr: nothing to say.
  std::string (*note)(const RunMetrics&) = nullptr;
};

// The reports that list run metrics; a row's `shown_in` is a set of these.
enum MetricView : unsigned {
  kInJson = 1u << 0,     // performance.<key> of the JSON report and analyze; null when absent
  kInCompare = 1u << 1,  // compared by `aorta_suite compare` and the Run Deck's comparison
  kInDeck = 1u << 2,     // the Run Deck's cell and results table, times in ms (deck_key)
  kInHtml = 1u << 3,     // the HTML report's Metrics table, as `label`
  kInSummary = 1u << 4,  // the run summary's averages (console, <suite>.log), as `short_label`
  kInTable = 1u << 5,    // the averages line of analyze's console table, as `short_label`
};

struct MetricSpec {
  const char* key;  // as performance names it in aorta_benchmark_report.json
  MetricUnit unit;
  Better better;
  // The value in `unit`; nothing when the run lacks it (no steps, no memory events).
  std::optional<double> (*value)(const RunMetrics&);
  unsigned shown_in;        // MetricView bits
  const char* label;        // for people: "avg compute ratio"
  const char* short_label;  // in a console list of averages: "compute"; nullptr when in none
  const char* deck_header;  // its column in the Run Deck's results table; nullptr when not in the deck
  // The lists people read (compare, HTML, run summary) show a detail right after the
  // metric it details (exposed comm after comm); the JSON keeps the catalogue's order.
  const char* detail_of;
  std::optional<GateSpec> gate{};  // nothing: no threshold file can gate it
};

// Every row, in the JSON report's order.
std::span<const MetricSpec> metric_catalogue();
// The row for `key`, or nullptr for an unknown key.
const MetricSpec* find_metric(std::string_view key);

// The rows `view` shows, in its order: the catalogue's for the JSON and the Run Deck,
// with each detail after the metric it details for the others.
std::vector<const MetricSpec*> metrics_in(MetricView view);

// The Run Deck shows every time in ms: std_iteration_time_us is its
// training.std_iteration_time_ms, the value divided by 1000.
std::string deck_key(const MetricSpec& spec);
std::optional<double> deck_value(const MetricSpec& spec, const RunMetrics& run);

// How a list shows fractions: "0.7750" or "77.50%". One list uses one style.
enum class RatioStyle { kFraction, kPercent };
std::string format_ratio(std::optional<double> value, RatioStyle style);  // "-" when there is none

// A metric of `run` as a list shows it: a fraction in `style`, "12.345 ms", "3", "1.50 GB"; "-" when absent.
std::string format_metric(const MetricSpec& spec, const RunMetrics& run, RatioStyle style);

// "compute 0.7750, comm 0.3167": the `view` rows' short labels and values, in its order.
std::string short_list(const RunMetrics& run, MetricView view, RatioStyle style);

}  // namespace aorta::metrics
