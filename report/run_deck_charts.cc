#include "report/run_deck_charts.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "metrics/threshold_catalogue.h"
#include "report/run_deck_cvs.h"
#include "report/run_deck_heatmap.h"

namespace aorta::report {
namespace {

// A chart axis from 0: share charts have a fixed 0-100 % axis (a 3 % share is drawn
// 3 % wide), time charts one scaled to the data (data_axis).
nlohmann::ordered_json fixed_percent_axis() { return {{"max", 100}, {"ticks", {0, 25, 50, 75, 100}}}; }

// The configured gates of catalogue tier `tier`, in the chart's unit (a fraction
// gate on a % chart is scaled by 100). A gate off the axis is drawn at its edge.
nlohmann::ordered_json chart_gates(const DeckInput& in, const std::string& tier, const nlohmann::ordered_json& axis) {
  nlohmann::ordered_json gates = nlohmann::ordered_json::array();
  for (const auto& spec : metrics::threshold_catalogue()) {
    if (tier != spec.tier) continue;
    const config::Threshold* t = configured_threshold(*in.variant, spec.key);
    if (!t) continue;
    const bool fraction = spec.unit() == metrics::MetricUnit::kFraction;
    const double value = fraction ? *t->value * 100 : *t->value;
    const double max = axis["max"].get<double>();
    std::string label = std::string(spec.kind == metrics::ThresholdKind::kMax ? "max " : "min ") +
                        metrics::format_limit(spec, *t->value);
    if (fraction) label += fmt::format(" ({:g} %)", value);
    label += std::string(" ") + spec.display;
    double drawn = std::clamp(value, 0.0, max);
    if (value > max) label += ", beyond the axis: drawn at its end";
    if (value < 0) label += ", below the axis: drawn at 0";
    gates.push_back({{"threshold", spec.key}, {"kind", kind_name(spec.kind)},
                     {"value", value}, {"drawn_at", drawn}, {"off_axis", drawn != value}, {"label", label}});
  }
  return gates;
}

nlohmann::ordered_json chart(const DeckInput& in, const std::string& id, const std::string& title, const std::string& unit,
                   const std::string& tier, nlohmann::ordered_json bars) {
  double largest = 0;
  for (const auto& b : bars) largest = std::max(largest, b[1].get<double>());
  nlohmann::ordered_json axis = unit == "%" ? fixed_percent_axis() : data_axis(largest);
  nlohmann::ordered_json c;
  c["id"] = id;
  c["title"] = title;
  c["unit"] = unit;
  c["scale"] = unit == "%" ? "fixed" : "data";
  c["axis"] = axis;
  c["gate_tier"] = tier;  // the gate_matrix tier this chart shows; "gates": the configured ones
  c["gates"] = chart_gates(in, tier, axis);
  c["bars"] = std::move(bars);
  return c;
}

std::string rank_label(const metrics::RankMetrics& r) { return r.rank ? std::to_string(*r.rank) : "?"; }

// More ranks than this: the per-rank charts show the slowest this many.
inline constexpr size_t kMaxChartRanks = 16;

inline constexpr const char* kNoStepsNote =
    "No per-step charts: the traces have no ProfilerStep annotations.";

// Per-rank series when there are at least two ranks; ratios as percentages here.
nlohmann::ordered_json rank_series(const DeckInput& in) {
  nlohmann::ordered_json series = nlohmann::ordered_json::array();
  if (!in.result || in.result->per_rank.size() < 2) return series;
  struct Series {
    const char* group;
    const char* name;
    const char* unit;
    double (*value)(const metrics::RankMetrics&);
  };
  const Series kSeries[] = {
      {"Time", "iteration", "ms", [](const metrics::RankMetrics& r) { return r.total_time_us * 0.001; }},
      {"Time", "compute", "ms", [](const metrics::RankMetrics& r) { return r.compute_time_us * 0.001; }},
      {"Time", "comm", "ms", [](const metrics::RankMetrics& r) { return r.comm_time_us * 0.001; }},
      {"Share of iteration", "compute", "%", [](const metrics::RankMetrics& r) { return r.compute_ratio * 100; }},
      {"Share of iteration", "comm", "%", [](const metrics::RankMetrics& r) { return r.comm_ratio * 100; }},
      {"Comm overlap", "overlap", "%", [](const metrics::RankMetrics& r) { return r.overlap_ratio * 100; }}};
  for (const auto& s : kSeries) {
    nlohmann::ordered_json points = nlohmann::ordered_json::array();
    for (const auto& r : in.result->per_rank)
      if (r.rank) points.push_back({*r.rank, s.value(r)});
    series.push_back({{"group", s.group}, {"name", s.name}, {"unit", s.unit}, {"x_label", "rank"}, {"points", points}});
  }
  return series;
}

// The ranks the per-rank charts show: all, or past kMaxChartRanks the ones of longest
// iteration (in rank order), so that 512 ranks are not 1,536 bars; `of` says which.
std::vector<const metrics::RankMetrics*> charted_ranks(const metrics::RunMetrics& result, std::string& of) {
  std::vector<const metrics::RankMetrics*> ranks;
  for (const auto& r : result.per_rank) ranks.push_back(&r);
  if (ranks.size() <= kMaxChartRanks) return ranks;
  of = fmt::format(" (the {} slowest of {} by iteration time)", kMaxChartRanks, ranks.size());
  std::stable_sort(ranks.begin(), ranks.end(), [](const auto* a, const auto* b) { return a->total_time_us > b->total_time_us; });
  ranks.resize(kMaxChartRanks);
  std::stable_sort(ranks.begin(), ranks.end(), [&](const auto* a, const auto* b) { return a < b; });
  return ranks;
}

// Per-rank time and shares, when there are two ranks.
nlohmann::ordered_json rank_charts(const DeckInput& in) {
  nlohmann::ordered_json charts = nlohmann::ordered_json::array();
  if (!in.result || in.result->per_rank.size() < 2) return charts;
  nlohmann::ordered_json time = nlohmann::ordered_json::array(), share = nlohmann::ordered_json::array(), overlap = nlohmann::ordered_json::array();
  std::string of;
  for (const auto* charted : charted_ranks(*in.result, of)) {
    const auto& r = *charted;
    const std::string rank = "rank " + rank_label(r);
    time.push_back({rank + " iteration", r.total_time_us * 0.001});
    time.push_back({rank + " compute", r.compute_time_us * 0.001});
    time.push_back({rank + " comm", r.comm_time_us * 0.001});
    share.push_back({rank + " compute", r.compute_ratio * 100});
    share.push_back({rank + " comm", r.comm_ratio * 100});
    overlap.push_back({rank + " overlap", r.overlap_ratio * 100});
  }
  charts.push_back(chart(in, "time", "Time by rank" + of, "ms", "iteration_time", time));
  charts.push_back(chart(in, "share", "Share of iteration by rank" + of, "%", "compute_ratio", share));
  charts.push_back(chart(in, "overlap", "Comm overlap by rank" + of, "%", "overlap_ratio", overlap));
  return charts;
}

// The ranks that have more steps than the JSON report keeps (kMaxStepRows), named.
std::string cut_short(const DeckInput& in) {
  std::string names;
  for (const auto& r : in.result->per_rank)
    if (r.steps.size() > result_json::kMaxStepRows)
      names += fmt::format("{}rank {} has {}", names.empty() ? "" : ", ", rank_label(r), r.steps.size());
  return names;
}

}  // namespace

nlohmann::ordered_json data_axis(double largest) {
  if (!(largest > 0)) largest = 1;
  const double raw = largest / 4;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0})
    if (m * magnitude >= raw * (1 - 1e-9)) {
      step = m * magnitude;
      break;
    }
  const int count = std::max(1, static_cast<int>(std::ceil(largest / step - 1e-9)));
  nlohmann::ordered_json ticks = nlohmann::ordered_json::array();
  for (int i = 0; i <= count; ++i) ticks.push_back(i * step);
  return {{"max", count * step}, {"ticks", ticks}};
}

nlohmann::ordered_json metric_charts_json(const DeckInput& in) {
  nlohmann::ordered_json heatmap = nullptr, step_note = nullptr;
  if (in.result) {
    // The step gates on an axis without end: the heatmap has none, its caption names them.
    const nlohmann::ordered_json no_end = {{"max", std::numeric_limits<double>::infinity()}};
    heatmap = step_heatmap_json(*in.result, chart_gates(in, "step_time", no_end));
    const std::string names = cut_short(in);
    if (heatmap.is_null()) step_note = kNoStepsNote;
    else if (!names.empty())
      step_note = fmt::format("Per-step charts show each rank's first {} steps: {}.", result_json::kMaxStepRows, names);
  }
  return {{"series", rank_series(in)}, {"charts", rank_charts(in)}, {"step_heatmap", heatmap}, {"step_note", step_note}};
}

}  // namespace aorta::report
