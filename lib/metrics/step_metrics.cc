#include "metrics/step_metrics.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "trace/launch_times.h"
#include "trace/rising_search.h"
#include "trace/sort_runs.h"
#include "trace/timeline.h"

namespace aorta::metrics {

namespace {

std::vector<trace::StepAnnotation> steps_by_start(const trace::TraceData& data) {
  std::vector<trace::StepAnnotation> steps(data.steps.begin(), data.steps.end());
  std::stable_sort(steps.begin(), steps.end(),
                   [](const trace::StepAnnotation& a, const trace::StepAnnotation& b) { return a.ts < b.ts; });
  return steps;
}

}  // namespace

std::vector<StepMetrics> step_metrics(const trace::TraceData& data, const std::vector<bool>& selected) {
  // Without a GPU timeline nothing is looked up: no table to build.
  return step_metrics(data, selected, selected.empty() ? trace::LaunchTimes() : trace::LaunchTimes(data));
}

std::vector<StepMetrics> step_metrics(const trace::TraceData& data, const std::vector<bool>& selected,
                                      const trace::LaunchTimes& launches) {
  const std::vector<trace::StepAnnotation> steps = steps_by_start(data);
  std::vector<std::vector<uint32_t>> members(steps.size());
  if (!selected.empty() && !steps.empty()) {
    const auto& launch_ts = launches.sorted();
    trace::RisingSearch launch_of(launch_ts.begin(), launch_ts.end(),
                                  [](const trace::LaunchTimes::Entry& e, int64_t c) { return e.first < c; });
    for (uint32_t i = 0; i < data.gpu_events.size(); ++i) {
      const int64_t correlation = data.gpu_events[i].correlation;
      if (!selected[i] || correlation == trace::kNoKey) continue;
      auto l = launch_of(correlation);
      if (l == launch_ts.end() || l->first != correlation) continue;
      const double t = l->second;
      // The last step starting at or before t; annotations of one thread do not overlap.
      auto s = std::upper_bound(steps.begin(), steps.end(), t,
                                [](double v, const trace::StepAnnotation& a) { return v < a.ts; });
      if (s == steps.begin()) continue;
      --s;
      if (t < s->ts + s->dur) members[static_cast<size_t>(s - steps.begin())].push_back(i);
    }
  }
  std::vector<StepMetrics> out;
  out.reserve(steps.size());
  for (size_t k = 0; k < steps.size(); ++k) {
    StepMetrics m;
    m.step = steps[k].number;
    m.start_us = steps[k].ts;
    m.time_ms = steps[k].dur / 1000.0;
    if (!selected.empty()) {
      const trace::Breakdown b = trace::breakdown_of(data, members[k]);
      m.gpu_events = b.selected_events;
      m.compute_ms = b.computation_time / 1000.0;
      m.comm_ms = b.total_comm_time / 1000.0;
      m.exposed_comm_ms = b.exposed_comm_time / 1000.0;
      m.overlap_ms = b.comp_comm_overlap_time / 1000.0;
      if (b.total_comm_time > 0) m.overlap_ratio = b.comp_comm_overlap_time / b.total_comm_time;
      RankDiagnosis d = diagnose(data, members[k], b.total_time, launches);
      m.classes = std::move(d.classes);
      m.idle = d.idle;
    }
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<StepMetrics> cpu_step_metrics(const trace::TraceData& data, const trace::CpuTimeline& timeline) {
  std::vector<StepMetrics> out = step_metrics(data, {});
  // The annotations in step_metrics's order (by start, stable), for their exact ends.
  std::vector<trace::Interval> spans;
  spans.reserve(out.size());
  for (const auto& s : steps_by_start(data)) spans.emplace_back(s.ts, s.ts + s.dur);
  const std::vector<double> compute = trace::lengths_within(timeline.compute, spans);
  const std::vector<double> comm = trace::lengths_within(timeline.comm, spans);
  const std::vector<double> exposed = trace::lengths_within(trace::subtract_intervals(timeline.comm, timeline.compute), spans);
  const std::vector<double> both = trace::lengths_within(trace::intersect_intervals(timeline.compute, timeline.comm), spans);
  for (size_t k = 0; k < out.size(); ++k) {
    StepMetrics& m = out[k];
    m.compute_ms = compute[k] / 1000.0;
    m.comm_ms = comm[k] / 1000.0;
    m.exposed_comm_ms = exposed[k] / 1000.0;
    m.overlap_ms = both[k] / 1000.0;
    if (comm[k] > 0) m.overlap_ratio = both[k] / comm[k];
  }
  return out;
}

std::vector<std::string> dropped_step_warnings(const trace::TraceData& data) {
  const trace::DroppedSteps& d = data.dropped_steps;
  auto step = [](const trace::StepAnnotation& s) {
    return fmt::format("ProfilerStep#{} at ts {} us, dur {} us", s.number, s.ts, s.dur);
  };
  std::vector<std::string> out;
  if (d.duplicates > 0)
    out.push_back(fmt::format("exact duplicate ProfilerStep annotations, counted once: {}; the first: {}", d.duplicates,
                              step(d.first_duplicate)));
  if (d.nested > 0)
    out.push_back(fmt::format(
        "ProfilerStep annotations inside another step's span, not counted as steps (their time and events count in "
        "the step around them): {}; the first: {}, inside {}",
        d.nested, step(d.first_nested), step(d.first_nested_in)));
  return out;
}

}  // namespace aorta::metrics
