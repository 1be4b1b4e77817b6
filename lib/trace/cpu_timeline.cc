#include "trace/cpu_timeline.h"

#include <algorithm>
#include <map>

namespace aorta::trace {
namespace {

Intervals clip(const Intervals& merged, double start, double end) {
  Intervals out;
  for (const auto& [s, e] : merged) {
    const double lo = std::max(s, start), hi = std::min(e, end);
    if (lo < hi) out.emplace_back(lo, hi);
  }
  return out;
}

// Whether each event of `data.cpu_events` (steps aside) is top-level on its thread:
// by thread, then start, the longer first on equal starts, then file order. An
// event starting at or after all earlier ones of its thread is contained in one of
// them exactly when it ends no later than the latest end so far.
std::vector<bool> top_level(const LargeVector<CpuEvent>& events) {
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < events.size(); ++i)
    if (events[i].cls != CpuClass::kStep) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const CpuEvent &x = events[a], &y = events[b];
    if (x.thread != y.thread) return x.thread < y.thread;
    if (x.ts != y.ts) return x.ts < y.ts;
    return x.end > y.end;
  });
  std::vector<bool> top(events.size(), false);
  bool first = true;
  uint32_t thread = 0;
  double latest_end = 0;
  for (uint32_t i : order) {
    const CpuEvent& ev = events[i];
    if (first || ev.thread != thread) {
      first = false;
      thread = ev.thread;
      top[i] = true;
      latest_end = ev.end;
      continue;
    }
    top[i] = ev.end > latest_end;
    latest_end = std::max(latest_end, ev.end);
  }
  return top;
}

}  // namespace

namespace {

// In merged intervals both starts and ends rise: the intervals [start, end) meets
// are those from the first that ends after start to the last that starts before end.
struct Met {
  size_t from = 0, to = 0;
};

Met intervals_met(const Intervals& intervals, double start, double end) {
  auto first = std::partition_point(intervals.begin(), intervals.end(), [&](const Interval& iv) { return iv.second <= start; });
  auto last = std::partition_point(first, intervals.end(), [&](const Interval& iv) { return iv.first < end; });
  return {static_cast<size_t>(first - intervals.begin()), static_cast<size_t>(last - intervals.begin())};
}

// The clipped lengths of intervals [from, to), added in order: length_within's sum.
double clipped_sum(const Intervals& intervals, Met met, double start, double end) {
  double sum = 0;
  for (size_t i = met.from; i < met.to; ++i) {
    const double lo = std::max(intervals[i].first, start), hi = std::min(intervals[i].second, end);
    if (lo < hi) sum += hi - lo;
  }
  return sum;
}

}  // namespace

double length_within(const Intervals& intervals, double start, double end) {
  return clipped_sum(intervals, intervals_met(intervals, start, end), start, end);
}

std::vector<double> lengths_within(const Intervals& intervals, const std::vector<Interval>& spans) {
  std::vector<Met> met;
  met.reserve(spans.size());
  uint64_t visits = 0;
  for (const auto& [start, end] : spans) {
    met.push_back(intervals_met(intervals, start, end));
    visits += met.back().to - met.back().from;
  }
  std::vector<double> out;
  out.reserve(spans.size());
  // Steps that follow one another visit each interval about once; more than a few
  // visits each means spans piled on spans, which only a hostile trace has.
  if (visits <= 4 * (uint64_t{intervals.size()} + spans.size())) {
    for (size_t k = 0; k < spans.size(); ++k) out.push_back(clipped_sum(intervals, met[k], spans[k].first, spans[k].second));
    return out;
  }
  std::vector<double> before(intervals.size() + 1, 0.0);  // before[i]: the length of intervals [0, i)
  for (size_t i = 0; i < intervals.size(); ++i) before[i + 1] = before[i] + (intervals[i].second - intervals[i].first);
  for (size_t k = 0; k < spans.size(); ++k) {
    const auto [from, to] = met[k];
    const auto [start, end] = spans[k];
    if (from >= to) {
      out.push_back(0);
      continue;
    }
    // The met intervals whole, less what sticks out of the span at either end.
    const double whole = before[to] - before[from];
    const double outside = std::max(0.0, start - intervals[from].first) + std::max(0.0, intervals[to - 1].second - end);
    out.push_back(std::max(0.0, whole - outside));
  }
  return out;
}

namespace {

// The training thread: the step annotations' thread, else the one with the most
// top-level operator time; none without either.
std::optional<uint32_t> training_thread(const LargeVector<CpuEvent>& events, const std::vector<bool>& top) {
  for (const auto& ev : events)
    if (ev.cls == CpuClass::kStep) return ev.thread;
  std::map<uint32_t, double> op_time;  // interned ids rise in first-seen order
  for (uint32_t i = 0; i < events.size(); ++i)
    if (top[i] && events[i].cls == CpuClass::kOperator) op_time[events[i].thread] += events[i].end - events[i].ts;
  std::optional<uint32_t> busiest;
  double most = -1;
  for (const auto& [thread, time] : op_time)
    if (time > most) {
      most = time;
      busiest = thread;
    }
  return busiest;
}

// The window the breakdown covers: the steps' span, else the span of the operators and
// the communication.
void set_window(const TraceData& data, const Intervals& ops, const Intervals& comm, CpuTimeline& t) {
  if (!data.steps.empty()) {
    t.window_from_steps = true;
    t.window_start = data.steps.front().ts;
    t.window_end = data.steps.front().ts + data.steps.front().dur;
    for (const auto& s : data.steps) {
      t.window_start = std::min(t.window_start, s.ts);
      t.window_end = std::max(t.window_end, s.ts + s.dur);
    }
  } else {
    bool any = false;
    for (const Intervals* set : {&ops, &comm})
      for (const auto& [s, e] : *set) {
        t.window_start = any ? std::min(t.window_start, s) : s;
        t.window_end = any ? std::max(t.window_end, e) : e;
        any = true;
      }
  }
}

}  // namespace

std::optional<CpuTimeline> cpu_timeline(const TraceData& data) {
  if (!data.gpu_events.empty() || data.cpu_events.empty()) return std::nullopt;
  const auto& events = data.cpu_events;
  const std::vector<bool> top = top_level(events);
  CpuTimeline t;

  const std::optional<uint32_t> thread = training_thread(events, top);
  const bool found = thread.has_value();
  if (found) t.training_thread = *thread;

  Intervals ops, comm, thread_comm;
  for (uint32_t i = 0; i < events.size(); ++i) {
    const CpuEvent& ev = events[i];
    if (ev.cls == CpuClass::kCommunication) {
      comm.emplace_back(ev.ts, ev.end);
      if (found && ev.thread == t.training_thread) thread_comm.emplace_back(ev.ts, ev.end);
    } else if (ev.cls == CpuClass::kOperator && found && top[i] && ev.thread == t.training_thread) {
      ops.emplace_back(ev.ts, ev.end);
    }
  }
  if (ops.empty() && comm.empty()) return std::nullopt;

  set_window(data, ops, comm, t);
  const double ws = t.window_start, we = t.window_end;
  if (!(we > ws)) return std::nullopt;
  uint64_t inside = 0;
  for (const Intervals* set : {&ops, &comm})
    for (const auto& [s, e] : *set) inside += s < we && e > ws;
  if (inside == 0) return std::nullopt;

  t.compute = clip(subtract_intervals(merge_intervals(std::move(ops)), merge_intervals(std::move(thread_comm))), ws, we);
  t.comm = clip(merge_intervals(std::move(comm)), ws, we);
  Breakdown& b = t.breakdown;
  b.selected_events = inside;
  b.total_time = we - ws;
  b.computation_time = total_length(t.compute);
  b.total_comm_time = total_length(t.comm);
  b.exposed_comm_time = total_length(subtract_intervals(t.comm, t.compute));
  b.comp_comm_overlap_time = total_length(intersect_intervals(t.compute, t.comm));
  Intervals both = t.compute;
  both.insert(both.end(), t.comm.begin(), t.comm.end());
  b.busy_time = total_length(merge_intervals(std::move(both)));
  b.idle_time = b.total_time - b.busy_time;
  return t;
}

}  // namespace aorta::trace
