#include "report/run_deck_diagnosis.h"

#include "result_json/diagnosis_json.h"

#include "common/utf8.h"
#include "report/diagnosis_bars.h"
#include "report/report_writer.h"

namespace aorta::report {
namespace {

// More ranks than this: the bars show the ones furthest from the median (a row and an
// SVG a rank made 1,024 charts of the 512-rank deck; at 8 the four gated measures stay
// 32); the JSON report has every rank.
constexpr size_t kMaxDeckBars = 8;

nlohmann::ordered_json bars_json(const RankBars& b) {
  nlohmann::ordered_json bars = nlohmann::ordered_json::array();
  for (size_t i : furthest_from_median(b, kMaxDeckBars)) bars.push_back({valid_utf8(b.bars[i].first), b.bars[i].second});
  return {{"id", b.id}, {"measure", b.measure}, {"unit", b.unit}, {"median", b.median}, {"ranks", b.bars.size()},
          {"bars", bars}};
}

RankBars bars_of(const nlohmann::ordered_json& j) {
  RankBars b{j["id"].get<std::string>(), j["measure"].get<std::string>(), j["unit"].get<std::string>(),
             j["median"].get<double>(), {}, j["ranks"].get<size_t>()};
  for (const auto& bar : j["bars"]) b.bars.emplace_back(bar[0].get<std::string>(), bar[1].get<double>());
  return b;
}

nlohmann::ordered_json text_or_null(const std::optional<std::string>& s) { return s ? nlohmann::ordered_json(*s) : nlohmann::ordered_json(nullptr); }

nlohmann::ordered_json finding_json(const metrics::Finding& f) {
  using Json = nlohmann::ordered_json;
  return {{"rank", f.rank ? Json(*f.rank) : Json(nullptr)},
          {"node", f.node ? Json(valid_utf8(*f.node)) : Json(nullptr)},
          {"gpu", f.gpu ? Json(*f.gpu) : Json(nullptr)},
          {"subject", result_json::finding_subject(f)},
          {"measure", valid_utf8(f.measure)},
          {"reason", valid_utf8(f.reason)},
          {"evidence", f.evidence ? Json(valid_utf8(*f.evidence)) : Json(nullptr)}};
}

}  // namespace

nlohmann::ordered_json deck_diagnosis_json(const metrics::RunMetrics* result) {
  if (!result) return nullptr;
  nlohmann::ordered_json d;
  d["note"] = nullptr;
  d["compute"] = nullptr;
  d["compute_note"] = nullptr;
  d["busbw"] = nlohmann::ordered_json::array();
  d["outliers"] = nlohmann::ordered_json::array();
  d["outlier_note"] = nullptr;
  const bool diagnosed = any_diagnosed(*result);
  for (const metrics::Finding* f : shown_findings(*result, diagnosed)) d["outliers"].push_back(finding_json(*f));
  if (!diagnosed) {
    d["note"] = no_diagnosis();
    return d;
  }
  const DiagnosisBars bars = diagnosis_bars(*result);
  if (bars.compute) d["compute"] = bars_json(*bars.compute);
  else d["compute_note"] = no_compute_comparison();
  for (const RankBars& b : bars.busbw) d["busbw"].push_back(bars_json(b));
  d["outlier_note"] = text_or_null(outlier_note(*result));
  return d;
}

void deck_diagnosis_html(const nlohmann::ordered_json& d, std::ostream& out) {
  out << "<section id=\"diagnosis-section\"><h2>Diagnosis</h2>\n";
  for (const char* note : {"note", "compute_note"})
    if (!d[note].is_null()) out << "<p>" << escape_xml(d[note]) << "</p>\n";
  const auto bars_html = [&](const nlohmann::ordered_json& b) {
    if (b["bars"].size() < b["ranks"].get<size_t>())
      out << "<p>" << escape_xml(b["measure"]) << ": the " << b["bars"].size() << " of " << b["ranks"].get<size_t>()
          << " ranks furthest from the median; the JSON report has every rank.</p>\n";
    write_rank_bars(bars_of(b), out);
  };
  if (!d["compute"].is_null()) bars_html(d["compute"]);
  for (const auto& b : d["busbw"]) bars_html(b);
  if (!d["outlier_note"].is_null()) out << "<p>" << escape_xml(d["outlier_note"]) << "</p>\n";
  for (const auto& f : d["outliers"])
    out << "<p class=\"fail\">" << escape_xml(f["subject"]) << ": " << escape_xml(f["reason"])
        << (f["evidence"].is_string() ? "; " + escape_xml(f["evidence"]) : "") << "</p>\n";
  out << "</section>\n";
}

}  // namespace aorta::report
