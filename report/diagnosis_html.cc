#include "report/diagnosis_html.h"

#include "result_json/diagnosis_json.h"

#include <fmt/format.h>

#include "metrics/metric_catalogue.h"
#include "report/diagnosis_bars.h"
#include "report/rank_rows.h"
#include "report/report_writer.h"

namespace aorta::report {
namespace {

void write_rank_row(const std::string& name, const std::string& parser, const metrics::RankMetrics& r, std::ostream& out,
                    const char* row_class = nullptr) {
  using metrics::format_ratio;
  constexpr auto kPercent = metrics::RatioStyle::kPercent;
  out << (row_class ? fmt::format("<tr class=\"{}\">", row_class) : "<tr>") << "<td>" << escape_xml(name) << "</td><td>"
      << parser << "</td><td>" << fmt::format("{:.3f} ms", r.total_time_us / 1000) << "</td><td>"
      << format_ratio(r.compute_ratio, kPercent) << "</td><td>" << format_ratio(r.comm_ratio, kPercent) << "</td><td>"
      << format_ratio(r.overlap_ratio, kPercent) << "</td></tr>\n";
}

const char* kRankHeader = "<tr><th>Rank</th><th>Parser</th><th>Iteration time</th><th>Compute</th><th>Comm</th>"
                          "<th>Overlap</th></tr>\n";

// Every rank's own figures, whatever parser read it (a CPU run's ranks too). Past
// kListedRanks (issue 46): each column's min, median and max, the outliers and the
// slowest, then every rank folded in a <details> (no script: Jenkins' CSP keeps it).
void write_per_rank_table(const metrics::RunMetrics& run, std::ostream& out) {
  const RankRows rows = rank_rows(run);
  out << "<table id=\"per-rank\">\n" << kRankHeader;
  if (rows.left_out)
    for (const auto& s : summary_rows(run.per_rank)) write_rank_row(s.name, "", s.row, out, "summary");
  for (const auto* r : rows.listed) write_rank_row(rank_name(*r), metrics::parser_name(r->parser), *r, out);
  out << "</table>\n";
  if (!rows.left_out) return;
  out << "<p class=\"left-out\">" << escape_xml(left_out_line(rows, "below, and aorta_benchmark_report.json")) << "</p>\n"
      << "<details id=\"per-rank-all\"><summary>Every rank (" << run.per_rank.size() << ")</summary>\n<table>\n"
      << kRankHeader;
  for (const auto& r : run.per_rank) write_rank_row(rank_name(r), metrics::parser_name(r.parser), r, out);
  out << "</table>\n</details>\n";
}

// A measure's bars: past kListedRanks ranks the ones furthest from the median, then the
// others' values, folded and without bars (512 SVGs a measure made the page slow).
void write_bars_folded(const RankBars& all, std::ostream& out) {
  const std::vector<size_t> shown = furthest_from_median(all, kListedRanks);
  if (shown.size() == all.bars.size()) return write_rank_bars(all, out);
  RankBars some{all.id, all.measure, all.unit, all.median, {}, all.bars.size()};
  for (size_t i : shown) some.bars.push_back(all.bars[i]);
  write_rank_bars(some, out);
  out << "<details class=\"other-ranks\"><summary>" << escape_xml(all.measure) << ": the other "
      << all.bars.size() - shown.size() << " ranks</summary>\n<table>\n<tr><th>Rank</th><th>" << escape_xml(all.measure)
      << "</th><th>Against the median</th></tr>\n";
  for (size_t i = 0, next = 0; i < all.bars.size(); ++i) {
    if (next < shown.size() && shown[next] == i) {
      ++next;
      continue;
    }
    const auto& [rank, v] = all.bars[i];
    out << "<tr><td>" << escape_xml(rank) << "</td><td>" << fmt::format("{:.2f} ", v) << escape_xml(all.unit) << "</td><td>"
        << (all.median > 0 ? fmt::format("{:.4f}x", v / all.median) : "-") << "</td></tr>\n";
  }
  out << "</table>\n</details>\n";
}

}  // namespace

void write_diagnosis_html(const metrics::RunMetrics& run, std::ostream& out) {
  if (run.per_rank.empty()) return;
  out << "<h2>Diagnosis</h2>\n";
  write_per_rank_table(run, out);
  const bool diagnosed = any_diagnosed(run);
  if (!diagnosed) {
    out << "<p id=\"diagnosis\" class=\"diagnosis-verdict\">" << escape_xml(no_diagnosis()) << "</p>\n";
  } else {
    const DiagnosisBars bars = diagnosis_bars(run);
    if (bars.compute) write_bars_folded(*bars.compute, out);
    else out << "<p id=\"diagnosis\">" << escape_xml(no_compute_comparison()) << "</p>\n";
    for (const RankBars& b : bars.busbw) write_bars_folded(b, out);
    if (const auto note = outlier_note(run)) out << "<p class=\"diagnosis-verdict\">" << escape_xml(*note) << "</p>\n";
  }
  for (const auto& f : shown_findings(run, diagnosed))
    out << "<p class=\"diagnosis-verdict failure\">"
        << escape_xml(result_json::finding_subject(*f) + ": " + result_json::finding_text(*f)) << "</p>\n";
}

}  // namespace aorta::report
