#include "report/diagnosis_json.h"

#include <fmt/format.h>

#include "common/utf8.h"

namespace aorta::report {
namespace {

std::string rank_name(const std::optional<int>& rank) { return rank ? fmt::format("rank {}", *rank) : "rank unknown"; }

ordered_json rank_json(const metrics::RankMetrics& r) {
  ordered_json o;
  o["rank"] = r.rank ? ordered_json(*r.rank) : ordered_json(nullptr);
  o["source"] = valid_utf8(r.source);
  const metrics::RankDiagnosis& d = *r.diagnosis;
  o["window_us"] = d.window_us;
  o["kernel_classes"] = ordered_json::array();
  for (const auto& c : d.classes)
    o["kernel_classes"].push_back({{"class", valid_utf8(c.name)}, {"kernels", c.kernels}, {"time_us", c.time_us},
                                   {"share_of_window", c.share}});
  o["collectives"] = ordered_json::array();
  for (const auto& b : d.collectives)
    o["collectives"].push_back({{"collective", valid_utf8(b.collective)},
                                {"dtype", valid_utf8(b.dtype)},
                                {"group_size", b.group_size},
                                {"message_bytes", b.bytes},
                                {"count", b.count},
                                {"time_us", b.time_us},
                                {"algbw_gbps", b.algbw_gbps},
                                {"busbw_gbps", b.busbw_gbps ? ordered_json(*b.busbw_gbps) : ordered_json(nullptr)}});
  o["missing_metadata"] = ordered_json::array();
  for (const auto& m : d.missing)
    o["missing_metadata"].push_back({{"reason", valid_utf8(m.reason)}, {"kernels", m.kernels}, {"time_us", m.time_us}});
  return o;
}

}  // namespace

ordered_json diagnosis_json(const metrics::RunMetrics& run) {
  ordered_json o;
  o["ranks"] = ordered_json::array();
  for (const auto& r : run.per_rank)
    if (r.diagnosis) o["ranks"].push_back(rank_json(r));
  o["outliers"] = ordered_json::array();
  for (const auto& f : run.outliers)
    o["outliers"].push_back({{"rank", f.rank ? ordered_json(*f.rank) : ordered_json(nullptr)},
                             {"source", valid_utf8(f.source)},
                             {"measure", valid_utf8(f.measure)},
                             {"unit", f.unit},
                             {"value", f.value},
                             {"median", f.median},
                             {"ranks", f.ranks},
                             {"ratio_to_median", f.ratio},
                             {"reason", valid_utf8(f.reason)}});
  return o;
}

std::vector<std::string> diagnosis_lines(const metrics::RunMetrics& run) {
  if (run.per_rank.size() < metrics::kMinRanks)
    return {fmt::format("no outlier test: {} rank(s), at least {} needed for a median and MAD", run.per_rank.size(),
                        metrics::kMinRanks)};
  if (run.outliers.empty()) return {fmt::format("no outlier among {} ranks", run.per_rank.size())};
  std::vector<std::string> lines;
  for (const auto& f : run.outliers) {
    if (lines.size() == kMaxDiagnosisLines) break;
    lines.push_back(fmt::format("{}: {} ({:.4g} {} vs median {:.4g})", rank_name(f.rank), valid_utf8(f.reason), f.value,
                                f.unit, f.median));
  }
  return lines;
}

}  // namespace aorta::report
