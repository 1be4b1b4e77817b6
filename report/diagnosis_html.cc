#include "report/diagnosis_html.h"

#include "result_json/diagnosis_json.h"

#include <fmt/format.h>

#include "metrics/metric_catalogue.h"
#include "report/diagnosis_bars.h"
#include "report/report_writer.h"

namespace aorta::report {
namespace {

// Every rank's own figures, whatever parser read it (a CPU run's ranks too).
void write_per_rank_table(const metrics::RunMetrics& run, std::ostream& out) {
  using metrics::format_ratio;
  constexpr auto kPercent = metrics::RatioStyle::kPercent;
  out << "<table id=\"per-rank\">\n<tr><th>Rank</th><th>Parser</th><th>Iteration time</th><th>Compute</th>"
         "<th>Comm</th><th>Overlap</th></tr>\n";
  for (const auto& r : run.per_rank)
    out << "<tr><td>" << escape_xml(rank_name(r)) << "</td><td>" << metrics::parser_name(r.parser) << "</td><td>"
        << fmt::format("{:.3f} ms", r.total_time_us / 1000) << "</td><td>" << format_ratio(r.compute_ratio, kPercent)
        << "</td><td>" << format_ratio(r.comm_ratio, kPercent) << "</td><td>" << format_ratio(r.overlap_ratio, kPercent)
        << "</td></tr>\n";
  out << "</table>\n";
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
    if (bars.compute) write_rank_bars(*bars.compute, out);
    else out << "<p id=\"diagnosis\">" << escape_xml(no_compute_comparison()) << "</p>\n";
    for (const RankBars& b : bars.busbw) write_rank_bars(b, out);
    if (const auto note = outlier_note(run)) out << "<p class=\"diagnosis-verdict\">" << escape_xml(*note) << "</p>\n";
  }
  for (const auto& f : shown_findings(run, diagnosed))
    out << "<p class=\"diagnosis-verdict failure\">"
        << escape_xml(result_json::finding_subject(*f) + ": " + result_json::finding_text(*f)) << "</p>\n";
}

}  // namespace aorta::report
