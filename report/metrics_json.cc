#include "report/metrics_json.h"

#include "common/utf8.h"

namespace aorta::report {
namespace {

ordered_json optional_number(const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); }

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
  return o;
}

ordered_json steps_json(const std::vector<metrics::StepMetrics>& steps) {
  ordered_json list = ordered_json::array();
  for (size_t i = 0; i < steps.size() && i < kMaxStepRows; ++i) {
    const metrics::StepMetrics& s = steps[i];
    ordered_json o;
    o["step"] = s.step;
    o["start_us"] = s.start_us;
    o["step_time_ms"] = s.time_ms;
    o["gpu_events"] = s.gpu_events;
    o["compute_time_ms"] = optional_number(s.compute_ms);
    o["comm_time_ms"] = optional_number(s.comm_ms);
    o["exposed_comm_time_ms"] = optional_number(s.exposed_comm_ms);
    o["overlap_time_ms"] = optional_number(s.overlap_ms);
    o["overlap_ratio"] = optional_number(s.overlap_ratio);
    list.push_back(o);
  }
  return list;
}

}  // namespace

ordered_json step_rows_note(size_t total) {
  if (total <= kMaxStepRows) return nullptr;
  return "per-step rows: first " + std::to_string(kMaxStepRows) + " of " + std::to_string(total) + " shown";
}

ordered_json performance_json(const metrics::RunMetrics& run) {
  ordered_json p;
  p["avg_iteration_time_ms"] = run.avg_iteration_time_ms;
  p["std_iteration_time_us"] = run.std_iteration_time_us;
  p["min_iteration_time_us"] = run.min_iteration_time_us;
  p["max_iteration_time_us"] = run.max_iteration_time_us;
  p["time_variance_ratio"] = optional_number(run.time_variance_ratio);
  p["avg_compute_ratio"] = run.avg_compute_ratio;
  p["avg_comm_ratio"] = run.avg_comm_ratio;
  p["avg_overlap_ratio"] = run.avg_overlap_ratio;
  p["avg_exposed_comm_ratio"] = optional_number(run.avg_exposed_comm_ratio);
  p["peak_memory_gb"] = optional_number(run.peak_memory_gb);
  p["ranks"] = run.per_rank.size();
  // Per-step figures (ProfilerStep#N annotations), over every rank's steps; null
  // when the traces have none.
  const auto& st = run.steps;
  p["step_count"] = st ? ordered_json(st->step_count) : ordered_json(nullptr);
  p["step_samples"] = st ? ordered_json(st->samples) : ordered_json(nullptr);
  p["avg_step_time_ms"] = st ? ordered_json(st->mean_ms) : ordered_json(nullptr);
  p["median_step_time_ms"] = st ? ordered_json(st->median_ms) : ordered_json(nullptr);
  p["p95_step_time_ms"] = st ? ordered_json(st->p95_ms) : ordered_json(nullptr);
  p["max_step_time_ms"] = st ? ordered_json(st->max_ms) : ordered_json(nullptr);
  p["step_time_cv"] = st ? ordered_json(st->cv) : ordered_json(nullptr);
  ordered_json stragglers = nullptr;
  if (st && st->worst) {
    stragglers = ordered_json::array();
    for (size_t i = 0; i < st->stragglers.size() && i < kMaxStepRows; ++i) stragglers.push_back(straggler_json(st->stragglers[i]));
  }
  p["step_stragglers"] = stragglers;
  p["worst_step_straggler"] = st && st->worst ? straggler_json(*st->worst) : ordered_json(nullptr);
  // Steps of one rank: null stragglers say why, not just that they are missing; a
  // list cut short says so.
  p["step_straggler_note"] = !st               ? ordered_json(nullptr)
                             : !st->worst      ? ordered_json(metrics::kNoStragglerPeer)
                                               : step_rows_note(st->stragglers.size());
  return p;
}

ordered_json per_rank_json(const metrics::RunMetrics& run) {
  ordered_json list = ordered_json::array();
  for (const auto& r : run.per_rank) {
    ordered_json o;
    o["rank"] = r.rank ? ordered_json(*r.rank) : ordered_json(nullptr);
    o["rank_source"] = valid_utf8(r.rank_source);
    o["source"] = valid_utf8(r.source);  // a trace file name: bytes
    o["parser"] = metrics::parser_name(r.parser);
    o["total_time_us"] = r.total_time_us;
    o["compute_time_us"] = r.compute_time_us;
    o["comm_time_us"] = r.comm_time_us;
    o["total_comm_time_us"] = r.total_comm_time_us;
    o["exposed_comm_time_us"] = optional_number(r.exposed_comm_time_us);
    o["total_memcpy_time_us"] = optional_number(r.total_memcpy_time_us);
    o["exposed_memcpy_time_us"] = optional_number(r.exposed_memcpy_time_us);
    o["busy_time_us"] = optional_number(r.busy_time_us);
    o["idle_time_us"] = optional_number(r.idle_time_us);
    o["compute_ratio"] = r.compute_ratio;
    o["comm_ratio"] = r.comm_ratio;
    o["exposed_comm_ratio"] = optional_number(r.exposed_comm_ratio);
    o["overlap_ratio"] = r.overlap_ratio;
    o["peak_memory_gb"] = optional_number(r.peak_memory_gb);
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

}  // namespace aorta::report
