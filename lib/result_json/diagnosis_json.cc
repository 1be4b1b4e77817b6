#include "result_json/diagnosis_json.h"

#include <algorithm>

#include <fmt/format.h>

#include "metrics/gate_subject.h"
#include "redact/redact.h"
#include "common/utf8.h"

namespace aorta::result_json {
namespace {

ordered_json optional_text(const std::optional<std::string>& s) { return s ? ordered_json(valid_utf8(*s)) : ordered_json(nullptr); }

ordered_json rank_json(const metrics::RankMetrics& r) {
  ordered_json o;
  o["rank"] = r.rank ? ordered_json(*r.rank) : ordered_json(nullptr);
  o["node"] = optional_text(r.node);
  o["gpu"] = r.gpu ? ordered_json(*r.gpu) : ordered_json(nullptr);
  o["source"] = valid_utf8(redact::redact_text(r.source));
  const metrics::RankDiagnosis& d = *r.diagnosis;
  o["window_us"] = d.window_us;
  o["kernel_classes"] = kernel_classes_json(d.classes);
  o["idle"] = idle_json(d.idle);
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

std::string finding_subject(const metrics::Finding& f) {
  if (f.of_node) return valid_utf8(f.node.value_or("node unknown"));
  return valid_utf8(metrics::GateSubject{f.node, f.rank, f.gpu, f.of_gpu}.text());
}

std::string finding_text(const metrics::Finding& f) {
  return valid_utf8(f.evidence ? f.reason + "; " + *f.evidence : f.reason);
}

ordered_json kernel_classes_json(const std::vector<metrics::KernelClassTime>& classes) {
  ordered_json list = ordered_json::array();
  for (const auto& c : classes)
    list.push_back({{"class", valid_utf8(c.name)}, {"kernels", c.kernels}, {"time_us", c.time_us},
                    {"share_of_window", c.share}});
  return list;
}

ordered_json idle_json(const metrics::IdleBreakdown& idle) {
  return {{"host_wait_us", idle.host_wait_us}, {"kernel_wait_us", idle.kernel_wait_us}, {"other_us", idle.other_us},
          {"gaps", idle.gaps}, {"host_wait_gaps", idle.host_wait_gaps}};
}

ordered_json diagnosis_json(const metrics::RunMetrics& run) {
  ordered_json o;
  o["ranks"] = ordered_json::array();
  for (const auto& r : run.per_rank)
    if (r.diagnosis) o["ranks"].push_back(rank_json(r));
  o["outliers"] = ordered_json::array();
  for (const auto& f : run.outliers)
    o["outliers"].push_back({{"rank", f.rank ? ordered_json(*f.rank) : ordered_json(nullptr)},
                             {"node", optional_text(f.node)},
                             {"gpu", f.gpu ? ordered_json(*f.gpu) : ordered_json(nullptr)},
                             {"source", valid_utf8(redact::redact_text(f.source))},
                             {"measure", valid_utf8(f.measure)},
                             {"unit", f.unit},
                             {"value", f.value},
                             // a node's or a GPU's own finding: none
                             {"median", f.of_node || f.of_gpu ? ordered_json(nullptr) : ordered_json(f.median)},
                             {"ranks", f.ranks},
                             {"ratio_to_median", f.of_node || f.of_gpu ? ordered_json(nullptr) : ordered_json(f.ratio)},
                             {"of_node", f.of_node},
                             {"of_gpu", f.of_gpu},
                             {"reason", valid_utf8(f.reason)},
                             {"evidence", optional_text(f.evidence)}});
  return o;
}

std::vector<std::string> diagnosis_lines(const metrics::RunMetrics& run) {
  std::vector<std::string> lines;
  const bool by_times = std::any_of(run.outliers.begin(), run.outliers.end(), [](const auto& f) { return !f.of_gpu; });
  if (run.per_rank.size() < metrics::kMinRanks)
    lines.push_back(fmt::format("no outlier test: {} rank(s), at least {} needed for a median and MAD",
                                run.per_rank.size(), metrics::kMinRanks));
  else if (!by_times)
    lines.push_back(fmt::format("no outlier among {} ranks", run.per_rank.size()));
  // A GPU's own telemetry findings come after the ranks'; past the room, at least one of
  // them still shows, and a last line counts what did not.
  std::vector<const metrics::Finding*> of_ranks, of_gpus;
  for (const auto& f : run.outliers) (f.of_gpu ? of_gpus : of_ranks).push_back(&f);
  const size_t total = of_ranks.size() + of_gpus.size();
  size_t room = kMaxDiagnosisLines - lines.size();
  if (total > room) --room;
  const size_t gpus_shown = std::min(of_gpus.size(), std::max<size_t>(room - std::min(room, of_ranks.size()),
                                                                      of_gpus.empty() ? 0 : 1));
  of_ranks.resize(std::min(of_ranks.size(), room - gpus_shown));
  of_ranks.insert(of_ranks.end(), of_gpus.begin(), of_gpus.begin() + static_cast<long>(gpus_shown));
  for (const metrics::Finding* f : of_ranks) {
    if (f->of_node || f->of_gpu) {  // its ranks' lines give the values; a GPU's evidence is its figures
      lines.push_back(fmt::format("{}: {}", finding_subject(*f), finding_text(*f)));
      continue;
    }
    lines.push_back(fmt::format("{}: {} ({:.4g} {} vs median {:.4g}){}", finding_subject(*f), valid_utf8(f->reason),
                                f->value, f->unit, f->median, f->evidence ? "; " + valid_utf8(*f->evidence) : ""));
  }
  if (total > of_ranks.size())
    lines.push_back(fmt::format("and {} more finding(s): every one in the JSON report's diagnosis.outliers",
                                total - of_ranks.size()));
  return lines;
}

}  // namespace aorta::result_json
