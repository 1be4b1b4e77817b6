#include "report/rank_rows.h"

#include <algorithm>
#include <functional>
#include <optional>

#include <fmt/format.h>

namespace aorta::report {
namespace {

using Figure = std::function<std::optional<double>(const metrics::RankMetrics&)>;

// The statistic of one figure over the ranks that have it; none when no rank has.
std::optional<double> statistic(const std::vector<metrics::RankMetrics>& ranks, const Figure& figure, int which) {
  std::vector<double> values;
  for (const auto& r : ranks)
    if (const auto v = figure(r)) values.push_back(*v);
  if (values.empty()) return std::nullopt;
  if (which < 0) return *std::min_element(values.begin(), values.end());
  if (which > 0) return *std::max_element(values.begin(), values.end());
  return metrics::median_of(std::move(values));
}

}  // namespace

RankRows rank_rows(const metrics::RunMetrics& run, bool every_rank) {
  RankRows rows;
  for (const auto& r : run.per_rank) rows.listed.push_back(&r);
  if (every_rank || rows.listed.size() <= kListedRanks) return rows;
  std::vector<const metrics::RankMetrics*> chosen;
  auto choose = [&](const metrics::RankMetrics* r) {
    if (chosen.size() < kListedRanks && std::find(chosen.begin(), chosen.end(), r) == chosen.end()) chosen.push_back(r);
  };
  // The outliers first, worst first as the diagnosis orders them; a finding names its rank's trace.
  for (const auto& f : run.outliers)
    for (const auto* r : rows.listed)
      if (!f.of_node && r->source == f.source && r->rank == f.rank) choose(r);
  std::vector<const metrics::RankMetrics*> slowest = rows.listed;
  std::stable_sort(slowest.begin(), slowest.end(), [](const auto* a, const auto* b) { return a->total_time_us > b->total_time_us; });
  for (const auto* r : slowest) choose(r);
  std::sort(chosen.begin(), chosen.end());  // back in rank order: per_rank is sorted by rank
  rows.left_out = rows.listed.size() - chosen.size();
  rows.listed = std::move(chosen);
  return rows;
}

std::vector<SummaryRow> summary_rows(const std::vector<metrics::RankMetrics>& ranks) {
  std::vector<SummaryRow> out;
  for (const auto& [name, which] : {std::pair{"min", -1}, std::pair{"median", 0}, std::pair{"max", 1}}) {
    auto of = [&, w = which](double metrics::RankMetrics::*field) {
      return statistic(ranks, [field](const metrics::RankMetrics& r) { return std::optional<double>(r.*field); }, w)
          .value_or(0);
    };
    metrics::RankMetrics row;
    row.parser = ranks.empty() ? metrics::ParserPath::kGpuTimeline : ranks.front().parser;
    row.total_time_us = of(&metrics::RankMetrics::total_time_us);
    row.compute_time_us = of(&metrics::RankMetrics::compute_time_us);
    row.comm_time_us = of(&metrics::RankMetrics::comm_time_us);
    row.total_comm_time_us = of(&metrics::RankMetrics::total_comm_time_us);
    row.compute_ratio = of(&metrics::RankMetrics::compute_ratio);
    row.comm_ratio = of(&metrics::RankMetrics::comm_ratio);
    row.overlap_ratio = of(&metrics::RankMetrics::overlap_ratio);
    row.exposed_comm_ratio = statistic(ranks, [](const metrics::RankMetrics& r) { return r.exposed_comm_ratio; }, which);
    out.push_back({name, std::move(row)});
  }
  return out;
}

std::string left_out_line(const RankRows& rows, const std::string& where) {
  return fmt::format("{} of {} ranks listed (the outliers, then the slowest); {} left out; every rank: {}",
                     rows.listed.size(), rows.listed.size() + rows.left_out, rows.left_out, where);
}

}  // namespace aorta::report
