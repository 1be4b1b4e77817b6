#include "result_json/rank_results_json.h"

#include <optional>

#include <fmt/format.h>

#include "common/version.h"

namespace nlohmann {

// An absent figure is null, and null reads back as absent.
template <typename T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& value) {
    if (value) j = *value;
    else j = nullptr;
  }
  static void from_json(const json& j, std::optional<T>& value) {
    if (j.is_null()) value.reset();
    else value = j.get<T>();
  }
};

}  // namespace nlohmann

namespace aorta::metrics {

// Every field by name: a field added to a struct and not here fails the round trip
// test (RankResultsJson.RoundTripsEveryFieldToTheBit).
NLOHMANN_JSON_SERIALIZE_ENUM(ParserPath, {{ParserPath::kGpuTimeline, "gpu_timeline"},
                                          {ParserPath::kCpuTimeline, "cpu_timeline"},
                                          {ParserPath::kBasicScan, "basic_scan"},
                                          {ParserPath::kTracelensExcel, "tracelens_excel"}})
NLOHMANN_JSON_SERIALIZE_ENUM(ParseStatus, {{ParseStatus::kFailed, "failed"},
                                           {ParseStatus::kSuccess, "success"},
                                           {ParseStatus::kPartial, "partial"}})
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(KernelClassTime, name, kernels, time_us, share)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(IdleBreakdown, host_wait_us, kernel_wait_us, other_us, host_wait_gaps, gaps)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CollectiveBandwidth, collective, dtype, group_size, bytes, count, time_us, algbw_gbps,
                                   busbw_gbps)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MissingMetadata, reason, kernels, time_us)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RankDiagnosis, window_us, classes, collectives, missing, idle)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(StepMetrics, step, start_us, time_ms, gpu_events, compute_ms, comm_ms,
                                   exposed_comm_ms, overlap_ms, overlap_ratio, classes, idle)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(RankMetrics, rank, rank_source, source, node, gpu, parser, total_time_us,
                                   compute_time_us, comm_time_us, total_comm_time_us, exposed_comm_time_us,
                                   total_memcpy_time_us, exposed_memcpy_time_us, busy_time_us, idle_time_us,
                                   compute_ratio, comm_ratio, overlap_ratio, exposed_comm_ratio, peak_memory_gb, steps,
                                   diagnosis)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(TraceSet, status, ranks, warnings, errors, files_found, files_parsed, bytes)

}  // namespace aorta::metrics

namespace aorta::result_json {

nlohmann::json rank_results_json(const metrics::TraceSet& set) {
  nlohmann::json doc = set;
  doc["build"] = version_line();
  return doc;
}

Result<metrics::TraceSet> rank_results_from_json(const nlohmann::json& doc) {
  // Equal to the bit only when both sides ran the same code: a node with another
  // package installed (or analysis.node_binary naming an older build) is refused.
  const std::string head = version_line();
  if (!doc.is_object() || !doc.contains("build") || doc["build"] != head)
    return Error{ErrorCode::kInvalidInput,
                 fmt::format("node-side rank results come from {}, the head is {}: node-side figures must come from "
                             "the same build; install this build on the node, or name it in analysis.node_binary",
                             doc.is_object() && doc.contains("build") ? doc["build"].dump() : "a build that does not say",
                             head),
                 ""};
  try {
    return doc.get<metrics::TraceSet>();
  } catch (const nlohmann::json::exception& e) {
    return Error{ErrorCode::kInvalidInput, std::string("node-side rank results: ") + e.what(), ""};
  }
}

}  // namespace aorta::result_json
