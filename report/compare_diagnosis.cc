#include "report/compare_diagnosis.h"

#include <fmt/format.h>

#include "common/utf8.h"

namespace aorta::report {
namespace {

// One rank's diagnosis as compare needs it; the first value not of the report's shape
// is named in `why`.
bool rank_of(const nlohmann::json& r, const std::string& at, metrics::RankDiagnosis& d, std::string& why) {
  auto list = [&](const char* key) -> const nlohmann::json* {
    if (r.is_object() && r.contains(key) && r[key].is_array()) return &r[key];
    why = at + "." + key + " is not a list";
    return nullptr;
  };
  const nlohmann::json* classes = list("kernel_classes");
  const nlohmann::json* collectives = classes ? list("collectives") : nullptr;
  if (!collectives) return false;
  for (size_t j = 0; j < classes->size(); ++j) {
    const nlohmann::json& c = (*classes)[j];
    if (!c.is_object() || !c.value("class", nlohmann::json()).is_string() ||
        !c.value("share_of_window", nlohmann::json()).is_number()) {
      why = fmt::format("{}.kernel_classes[{}] has no class name and share_of_window number", at, j);
      return false;
    }
    d.classes.push_back({c["class"].get<std::string>(), 0, 0, c["share_of_window"].get<double>()});
  }
  for (size_t j = 0; j < collectives->size(); ++j) {
    const nlohmann::json& c = (*collectives)[j];
    const nlohmann::json busbw = c.is_object() ? c.value("busbw_gbps", nlohmann::json()) : nlohmann::json();
    if (!c.is_object() || !c.value("collective", nlohmann::json()).is_string() ||
        !c.value("message_bytes", nlohmann::json()).is_number_unsigned() || !(busbw.is_null() || busbw.is_number())) {
      why = fmt::format("{}.collectives[{}] has no collective name, message_bytes and busbw_gbps", at, j);
      return false;
    }
    metrics::CollectiveBandwidth b;
    b.collective = c["collective"].get<std::string>();
    b.bytes = c["message_bytes"].get<uint64_t>();
    if (busbw.is_number()) b.busbw_gbps = busbw.get<double>();
    d.collectives.push_back(std::move(b));
  }
  return true;
}

nlohmann::ordered_json optional(const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr); }

}  // namespace

void read_diagnosis(const nlohmann::json& diagnosis, metrics::RunFigures& figures) {
  if (!diagnosis.is_object() || !diagnosis.contains("ranks") || !diagnosis["ranks"].is_array()) {
    figures.no_diagnosis = "diagnosis.ranks is not a list";
    return;
  }
  std::vector<metrics::RankMetrics> ranks(diagnosis["ranks"].size());
  for (size_t i = 0; i < ranks.size(); ++i) {
    std::string why;
    if (!rank_of(diagnosis["ranks"][i], fmt::format("diagnosis.ranks[{}]", i), ranks[i].diagnosis.emplace(), why)) {
      figures.no_diagnosis = valid_utf8(why);
      return;
    }
  }
  figures.diagnosis = metrics::diagnosis_figures(ranks);
  if (!figures.diagnosis) figures.no_diagnosis = kNoRankDiagnosed;
}

nlohmann::ordered_json diagnosis_comparison_json(const metrics::Comparison& c) {
  nlohmann::ordered_json d;
  d["note"] = c.no_diagnosis.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(valid_utf8(c.no_diagnosis));
  d["kernel_classes"] = nlohmann::ordered_json::array();
  for (const auto& s : c.class_shares)
    d["kernel_classes"].push_back({{"class", valid_utf8(s.kernel_class)}, {"baseline_share", s.baseline},
                                   {"candidate_share", s.candidate}, {"change", s.change},
                                   {"ratio", optional(s.ratio)}, {"verdict", s.verdict}});
  d["busbw"] = nlohmann::ordered_json::array();
  for (const auto& b : c.busbw)
    d["busbw"].push_back({{"collective", b.collective}, {"better", "higher"},
                          {"baseline_message_bytes", b.baseline_bytes}, {"candidate_message_bytes", b.candidate_bytes},
                          {"baseline_gbps", b.baseline_gbps}, {"candidate_gbps", b.candidate_gbps},
                          {"change", b.change}, {"ratio", optional(b.ratio)}, {"verdict", b.verdict}});
  return d;
}

}  // namespace aorta::report
