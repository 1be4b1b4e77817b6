#include "report/diagnosis_html.h"

#include <algorithm>

#include <fmt/format.h>

#include "metrics/diagnosis_gates.h"
#include "report/report_writer.h"

namespace aorta::report {
namespace {

constexpr double kBarWidth = 300;  // px for the largest of the ranks and the median

std::string rank_name(const metrics::RankMetrics& r) {
  return r.rank ? fmt::format("rank {}", *r.rank) : "rank ? (" + r.source + ")";
}

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

void write_diagnosis_html(const metrics::RunMetrics& run, std::ostream& out) {
  if (std::none_of(run.per_rank.begin(), run.per_rank.end(), [](const auto& r) { return r.diagnosis.has_value(); }))
    return;
  out << "<h2>Diagnosis</h2>\n";
  const auto compute = metrics::compute_per_rank(run.per_rank);
  if (!compute) {
    out << "<p id=\"diagnosis\">No per-rank comparison: fewer than " << metrics::kMinRanks
        << " ranks have compute kernels on a GPU timeline.</p>\n";
    return;
  }
  double largest = compute->median_us;
  for (const auto& [i, v] : compute->mean_us) largest = std::max(largest, v);
  out << "<table id=\"diagnosis\">\n<tr><th>Rank</th><th>Mean " << compute->kernels
      << " kernel time</th><th>Against the median</th><th>Bar (line: the median of "
      << compute->mean_us.size() << " ranks, " << fmt::format("{:.2f}", compute->median_us) << " us)</th></tr>\n";
  for (const auto& [i, v] : compute->mean_us)
    out << "<tr><td>" << escape_xml(rank_name(run.per_rank[i])) << "</td><td>" << fmt::format("{:.2f} us", v)
        << "</td><td>" << fmt::format("{:.4f}x", v / compute->median_us) << "</td><td>"
        << bar_svg(v, compute->median_us, largest) << "</td></tr>\n";
  out << "</table>\n";
  if (run.outliers.empty()) out << "<p class=\"diagnosis-verdict\">No outlier.</p>\n";
  for (const auto& f : run.outliers)
    out << "<p class=\"diagnosis-verdict failure\">" << escape_xml(f.rank ? fmt::format("rank {}: ", *f.rank) : "")
        << escape_xml(f.reason) << "</p>\n";
}

}  // namespace aorta::report
