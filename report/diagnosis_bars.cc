#include "report/diagnosis_bars.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "metrics/diagnosis_gates.h"
#include "metrics/rank_breakdown.h"
#include "report/report_writer.h"

namespace aorta::report {
namespace {

constexpr double kBarWidth = 300;  // px for the largest of the ranks and the median

// One bar, its value's width, with the median as a line across it.
std::string bar_svg(double value, double median, double largest) {
  const double width = kBarWidth * value / largest, at = kBarWidth * median / largest;
  return fmt::format(
      "<svg class=\"diagnosis-bar\" width=\"{0:.0f}\" height=\"16\" role=\"img\"><rect class=\"bar\" x=\"0\" y=\"3\" "
      "width=\"{1:.2f}\" height=\"10\" fill=\"#4a7bd0\"/><line class=\"median\" x1=\"{2:.2f}\" x2=\"{2:.2f}\" y1=\"0\" "
      "y2=\"16\" stroke=\"#222\" stroke-width=\"2\"/></svg>",
      kBarWidth + 4, width, at);
}

}  // namespace

std::string rank_name(const metrics::RankMetrics& r) {
  const std::string rank = r.rank ? fmt::format("rank {}", *r.rank) : "rank ? (" + r.source + ")";
  return r.node ? *r.node + " " + rank : rank;
}

DiagnosisBars diagnosis_bars(const metrics::RunMetrics& run) {
  DiagnosisBars out;
  if (const auto compute = metrics::compute_per_rank(run.per_rank)) {
    out.compute = RankBars{"diagnosis", fmt::format("Mean {} kernel time", compute->kernels), "us", compute->median_us, {}};
    for (const auto& [i, v] : compute->mean_us) out.compute->bars.emplace_back(rank_name(run.per_rank[i]), v);
  }
  for (std::string_view type : metrics::kGatedCollectives)
    if (const auto b = metrics::busbw_per_rank(run.per_rank, type)) {
      RankBars bars{fmt::format("diagnosis-busbw-{}", type), fmt::format("{} bus bandwidth at {} B", type, b->bytes),
                    "GB/s", b->median_gbps, {}};
      for (const auto& [i, v] : b->gbps) bars.bars.emplace_back(rank_name(run.per_rank[i]), v);
      out.busbw.push_back(std::move(bars));
    }
  return out;
}

bool any_diagnosed(const metrics::RunMetrics& run) {
  return std::any_of(run.per_rank.begin(), run.per_rank.end(), [](const auto& r) { return r.diagnosis.has_value(); });
}

std::string no_diagnosis() { return "No diagnosis: no rank has kernels on a GPU timeline."; }

std::string no_compute_comparison() {
  return fmt::format("No per-rank compute comparison: fewer than {} ranks have compute kernels on a GPU timeline.",
                     metrics::kMinRanks);
}

std::optional<std::string> outlier_note(const metrics::RunMetrics& run) {
  const auto diagnosed = std::count_if(run.per_rank.begin(), run.per_rank.end(),
                                       [](const auto& r) { return r.diagnosis.has_value(); });
  if (static_cast<size_t>(diagnosed) < metrics::kMinRanks)
    return fmt::format("No outlier test: {} rank(s) diagnosed, at least {} needed for a median and MAD.", diagnosed,
                       metrics::kMinRanks);
  // A GPU's own telemetry finding is no outlier by the ranks' times.
  if (std::all_of(run.outliers.begin(), run.outliers.end(), [](const auto& f) { return f.of_gpu; })) return "No outlier.";
  return std::nullopt;
}

std::vector<size_t> furthest_from_median(const RankBars& b, size_t most) {
  std::vector<size_t> shown(b.bars.size());
  std::iota(shown.begin(), shown.end(), 0);
  if (shown.size() <= most) return shown;
  const auto off = [&](size_t i) { return std::abs(b.bars[i].second - b.median); };
  std::stable_sort(shown.begin(), shown.end(), [&](size_t x, size_t y) { return off(x) > off(y); });
  shown.resize(most);
  std::sort(shown.begin(), shown.end());  // back in rank order
  return shown;
}

std::vector<const metrics::Finding*> shown_findings(const metrics::RunMetrics& run, bool diagnosed) {
  std::vector<const metrics::Finding*> shown;
  for (const auto& f : run.outliers)
    if (diagnosed || f.of_gpu) shown.push_back(&f);
  return shown;
}

void write_rank_bars(const RankBars& b, std::ostream& out) {
  double largest = b.median;
  for (const auto& [rank, v] : b.bars) largest = std::max(largest, v);
  if (!(largest > 0)) largest = 1;  // every value 0: empty bars, no division by zero
  out << "<table id=\"" << escape_xml(b.id) << "\">\n<tr><th>Rank</th><th>" << escape_xml(b.measure)
      << "</th><th>Against the median</th><th>Bar (line: the median of " << (b.ranks ? b.ranks : b.bars.size()) << " ranks, "
      << fmt::format("{:.2f} ", b.median) << escape_xml(b.unit) << ")</th></tr>\n";
  for (const auto& [rank, v] : b.bars)
    out << "<tr><td>" << escape_xml(rank) << "</td><td>" << fmt::format("{:.2f} ", v) << escape_xml(b.unit)
        << "</td><td>" << (b.median > 0 ? fmt::format("{:.4f}x", v / b.median) : "-") << "</td><td>"
        << bar_svg(v, b.median, largest) << "</td></tr>\n";
  out << "</table>\n";
}

}  // namespace aorta::report
