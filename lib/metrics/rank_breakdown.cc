#include "metrics/rank_breakdown.h"

#include <algorithm>

#include "metrics/outliers.h"

namespace aorta::metrics {

std::optional<BusbwPerRank> busbw_per_rank(const std::vector<RankMetrics>& ranks, std::string_view type) {
  BusbwPerRank out;
  bool any = false;
  for (const RankMetrics& r : ranks)
    if (r.diagnosis)
      for (const CollectiveBandwidth& b : r.diagnosis->collectives)
        if (b.busbw_gbps && is_collective_type(b.collective, type)) {
          out.bytes = std::max(out.bytes, b.bytes);
          any = true;
        }
  if (!any) return std::nullopt;
  std::vector<double> values;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (!ranks[i].diagnosis) continue;
    std::optional<double> lowest;  // this rank's, at the largest size
    for (const CollectiveBandwidth& b : ranks[i].diagnosis->collectives)
      if (b.busbw_gbps && b.bytes == out.bytes && is_collective_type(b.collective, type))
        lowest = std::min(lowest.value_or(*b.busbw_gbps), *b.busbw_gbps);
    if (!lowest) continue;
    out.gbps.emplace_back(i, *lowest);
    values.push_back(*lowest);
  }
  out.median_gbps = median_of(values);
  out.lowest_gbps = *std::min_element(values.begin(), values.end());
  return out;
}

std::optional<DiagnosisFigures> diagnosis_figures(const std::vector<RankMetrics>& ranks) {
  std::map<std::string, std::vector<double>> shares;
  size_t diagnosed = 0;
  for (const RankMetrics& r : ranks) {
    if (!r.diagnosis) continue;
    ++diagnosed;
    for (const KernelClassTime& c : r.diagnosis->classes) shares[c.name].push_back(c.share);
  }
  if (diagnosed == 0) return std::nullopt;
  DiagnosisFigures out;
  for (auto& [name, values] : shares) {
    values.resize(diagnosed, 0.0);  // the ranks without the class
    out.class_shares[name] = median_of(values);
  }
  for (std::string_view type : kGatedCollectives)
    if (auto b = busbw_per_rank(ranks, type)) out.busbw[std::string(type)] = {b->bytes, b->lowest_gbps};
  return out;
}

}  // namespace aorta::metrics
