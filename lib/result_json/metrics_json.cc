#include "result_json/metrics_json.h"

#include <cstdint>
#include <initializer_list>
#include <variant>

#include "redact/redact.h"
#include "common/utf8.h"
#include "result_json/diagnosis_json.h"
#include "metrics/metric_catalogue.h"

namespace aorta::result_json {
ordered_json optional_number(const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); }

namespace {

// A numeric field of T as the JSON writes it: a number, or null when an optional one is absent.
template <typename T>
struct NumberField {
  const char* name;
  std::variant<double T::*, std::optional<double> T::*> member;
};

template <typename T>
void put_numbers(ordered_json& o, const T& item, std::initializer_list<NumberField<T>> fields) {
  for (const auto& f : fields)
    o[f.name] = std::visit([&](auto member) { return optional_number(item.*member); }, f.member);
}

// Warnings and errors name trace files and quote their bytes.
ordered_json text_list(const std::vector<std::string>& lines) {
  ordered_json list = ordered_json::array();
  for (const auto& line : lines) list.push_back(valid_utf8(line));
  return list;
}

ordered_json straggler_json(const metrics::StepStraggler& s) {
  ordered_json o;
  o["step"] = s.step;
  o["slowest_rank"] = s.slowest_rank ? ordered_json(*s.slowest_rank) : ordered_json(nullptr);
  o["excess_ms"] = s.excess_ms;
  // What made it late (StepStraggler); null without GPU-timeline step figures.
  const bool known = !s.cause.empty();
  o["cause"] = known ? ordered_json(s.cause) : ordered_json(nullptr);
  o["compute_excess_ms"] = known ? ordered_json(s.compute_excess_ms) : ordered_json(nullptr);
  o["comm_excess_ms"] = known ? ordered_json(s.comm_excess_ms) : ordered_json(nullptr);
  o["idle_excess_ms"] = known ? ordered_json(s.idle_excess_ms) : ordered_json(nullptr);
  return o;
}

ordered_json steps_json(const std::vector<metrics::StepMetrics>& steps) {
  using metrics::StepMetrics;
  ordered_json list = ordered_json::array();
  for (size_t i = 0; i < steps.size() && i < kMaxStepRows; ++i) {
    const StepMetrics& s = steps[i];
    ordered_json o;
    o["step"] = s.step;
    put_numbers<StepMetrics>(o, s, {{"start_us", &StepMetrics::start_us}, {"step_time_ms", &StepMetrics::time_ms}});
    o["gpu_events"] = s.gpu_events;
    put_numbers<StepMetrics>(o, s,
                             {{"compute_time_ms", &StepMetrics::compute_ms},
                              {"comm_time_ms", &StepMetrics::comm_ms},
                              {"exposed_comm_time_ms", &StepMetrics::exposed_comm_ms},
                              {"overlap_time_ms", &StepMetrics::overlap_ms},
                              {"overlap_ratio", &StepMetrics::overlap_ratio}});
    o["kernel_classes"] = kernel_classes_json(s.classes);
    o["idle"] = s.idle ? idle_json(*s.idle) : ordered_json(nullptr);
    list.push_back(o);
  }
  return list;
}

// A catalogue metric as performance holds it: a count as an integer, null when absent.
ordered_json metric_json(const metrics::MetricSpec& spec, const metrics::RunMetrics& run) {
  const std::optional<double> v = spec.value(run);
  if (v && spec.unit == metrics::MetricUnit::kCount) return static_cast<std::uint64_t>(*v);
  return optional_number(v);
}

// Per-step stragglers (first kMaxStepRows by step number); null when no rank has a peer.
ordered_json stragglers_json(const std::optional<metrics::StepSummary>& st) {
  if (!st || !st->worst) return nullptr;
  ordered_json stragglers = ordered_json::array();
  for (size_t i = 0; i < st->stragglers.size() && i < kMaxStepRows; ++i) stragglers.push_back(straggler_json(st->stragglers[i]));
  return stragglers;
}

}  // namespace

ordered_json step_rows_note(size_t total) {
  if (total <= kMaxStepRows) return nullptr;
  return "per-step rows: first " + std::to_string(kMaxStepRows) + " of " + std::to_string(total) + " shown";
}

ordered_json performance_json(const metrics::RunMetrics& run) {
  ordered_json p;
  for (const metrics::MetricSpec* spec : metrics::metrics_in(metrics::kInJson)) p[spec->key] = metric_json(*spec, run);
  // The per-step figures above are over every rank's steps, null when the traces
  // have no ProfilerStep annotations; so are the stragglers.
  const auto& st = run.steps;
  p["step_stragglers"] = stragglers_json(st);
  p["worst_step_straggler"] = st && st->worst ? straggler_json(*st->worst) : ordered_json(nullptr);
  // Steps of one rank: null stragglers say why, not just that they are missing; a
  // list cut short says so.
  p["step_straggler_note"] = !st               ? ordered_json(nullptr)
                             : !st->worst      ? ordered_json(metrics::kNoStragglerPeer)
                                               : step_rows_note(st->stragglers.size());
  return p;
}

ordered_json per_rank_json(const metrics::RunMetrics& run) {
  using metrics::RankMetrics;
  ordered_json list = ordered_json::array();
  for (const auto& r : run.per_rank) {
    ordered_json o;
    o["rank"] = r.rank ? ordered_json(*r.rank) : ordered_json(nullptr);
    o["rank_source"] = valid_utf8(r.rank_source);
    o["node"] = r.node ? ordered_json(valid_utf8(*r.node)) : ordered_json(nullptr);
    o["gpu"] = r.gpu ? ordered_json(*r.gpu) : ordered_json(nullptr);
    o["source"] = valid_utf8(redact::redact_text(r.source));  // a trace file name: bytes, maybe a secret
    o["parser"] = metrics::parser_name(r.parser);
    put_numbers<RankMetrics>(o, r,
                             {{"total_time_us", &RankMetrics::total_time_us},
                              {"compute_time_us", &RankMetrics::compute_time_us},
                              {"comm_time_us", &RankMetrics::comm_time_us},
                              {"total_comm_time_us", &RankMetrics::total_comm_time_us},
                              {"exposed_comm_time_us", &RankMetrics::exposed_comm_time_us},
                              {"total_memcpy_time_us", &RankMetrics::total_memcpy_time_us},
                              {"exposed_memcpy_time_us", &RankMetrics::exposed_memcpy_time_us},
                              {"busy_time_us", &RankMetrics::busy_time_us},
                              {"idle_time_us", &RankMetrics::idle_time_us},
                              {"compute_ratio", &RankMetrics::compute_ratio},
                              {"comm_ratio", &RankMetrics::comm_ratio},
                              {"exposed_comm_ratio", &RankMetrics::exposed_comm_ratio},
                              {"overlap_ratio", &RankMetrics::overlap_ratio},
                              {"peak_memory_gb", &RankMetrics::peak_memory_gb}});
    o["steps"] = steps_json(r.steps);  // empty: no ProfilerStep annotations
    o["steps_note"] = step_rows_note(r.steps.size());
    list.push_back(o);
  }
  return list;
}

ordered_json parse_json(const metrics::TraceSet& set) {
  ordered_json p;
  p["status"] = metrics::status_name(set.status);
  p["files_found"] = set.files_found;
  p["files_parsed"] = set.files_parsed;
  p["warnings"] = text_list(set.warnings);
  p["errors"] = text_list(set.errors);
  return p;
}

std::string json_text(const ordered_json& doc) {
  return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace aorta::result_json
