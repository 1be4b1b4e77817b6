#include "report/diagnosis_html.h"

#include "result_json/diagnosis_json.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/diagnosis_bars.h"
#include "report/report_writer.h"

namespace aorta::report {

void write_diagnosis_html(const metrics::RunMetrics& run, std::ostream& out) {
  if (std::none_of(run.per_rank.begin(), run.per_rank.end(), [](const auto& r) { return r.diagnosis.has_value(); }))
    return;
  out << "<h2>Diagnosis</h2>\n";
  const DiagnosisBars bars = diagnosis_bars(run);
  if (bars.compute) write_rank_bars(*bars.compute, out);
  else out << "<p id=\"diagnosis\">" << escape_xml(no_compute_comparison()) << "</p>\n";
  for (const RankBars& b : bars.busbw) write_rank_bars(b, out);
  if (const auto note = outlier_note(run)) out << "<p class=\"diagnosis-verdict\">" << escape_xml(*note) << "</p>\n";
  for (const auto& f : run.outliers)
    out << "<p class=\"diagnosis-verdict failure\">" << escape_xml(result_json::finding_subject(f) + ": " + f.reason) << "</p>\n";
}

}  // namespace aorta::report
