#include "trace/timeline.h"

#include <algorithm>
#include <climits>

#include "trace/rising_search.h"
#include "trace/sort_runs.h"

namespace aorta::trace {

Intervals merge_intervals(Intervals intervals) {
  stable_sort_runs(intervals, [](const Interval& a, const Interval& b) { return a.first < b.first; });
  Intervals merged;
  merged.reserve(intervals.size());
  for (const auto& iv : intervals) {
    if (!merged.empty() && iv.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, iv.second);
    } else {
      merged.push_back(iv);
    }
  }
  return merged;
}

Intervals subtract_intervals(const Intervals& b, const Intervals& a) {
  Intervals out;
  size_t j = 0;
  for (const auto& piece : b) {
    double start = piece.first;
    while (j < a.size() && a[j].second <= start) ++j;
    size_t k = j;
    while (k < a.size() && a[k].first < piece.second) {
      if (a[k].first > start) out.emplace_back(start, a[k].first);
      start = std::max(start, a[k].second);
      if (start >= piece.second) break;
      ++k;
    }
    if (start < piece.second) out.emplace_back(start, piece.second);
  }
  return out;
}

Intervals intersect_intervals(const Intervals& a, const Intervals& b) {
  Intervals out;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    double lo = std::max(a[i].first, b[j].first);
    double hi = std::min(a[i].second, b[j].second);
    if (lo < hi) out.emplace_back(lo, hi);
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return out;
}

double total_length(const Intervals& intervals) {
  double sum = 0;
  for (const auto& iv : intervals) sum += iv.second - iv.first;
  return sum;
}

std::vector<bool> select_gpu_events(const TraceData& data, KernelSelection selection) {
  std::vector<bool> selected(data.gpu_events.size(), selection == KernelSelection::kIncludeUnlinked);
  if (selection == KernelSelection::kIncludeUnlinked) return selected;

  // TraceLens keys links by correlation unless the first launch-named runtime event
  // lacks one, then by External id.
  bool by_correlation = data.link_by_correlation.value_or(false);
  auto key_of = [&](int64_t correlation, int64_t external_id) { return by_correlation ? correlation : external_id; };

  // (thread, key) -> the last event with it in file order: keyed_events is sorted by
  // (thread, key) with file order kept inside each group; the group's last entry wins.
  const LargeVector<KeyedEvent>& last = data.keyed_events;
  bool any_graph = false;
  for (const auto& l : data.runtime_launches) any_graph |= l.graph_launch;
  std::vector<std::pair<int64_t, int32_t>> gpu_by_key;  // for graph launches
  if (any_graph)
    for (const auto& ke : data.keyed_events)
      if (ke.gpu_index >= 0) gpu_by_key.emplace_back(ke.key, ke.gpu_index);
  auto before = [](const KeyedEvent& a, const KeyedEvent& b) {
    return a.thread != b.thread ? a.thread < b.thread : a.key < b.key;
  };
  std::sort(gpu_by_key.begin(), gpu_by_key.end());
  // Launches come in file order, so each thread's keys, flow ids and flow ends mostly
  // rise: every lookup below is a RisingSearch (one per thread for the last events).
  auto not_after = [&](const KeyedEvent& e, const KeyedEvent& probe) { return !before(probe, e); };
  using LastSearch = RisingSearch<LargeVector<KeyedEvent>::const_iterator, decltype(not_after)>;
  std::vector<LastSearch> last_of_thread;
  auto find_last = [&](uint32_t thread, int64_t key) -> const KeyedEvent* {
    while (last_of_thread.size() <= thread) last_of_thread.emplace_back(last.cbegin(), last.cend(), not_after);
    auto it = last_of_thread[thread](KeyedEvent{thread, -1, key});
    if (it == last.cbegin()) return nullptr;
    --it;
    return it->thread == thread && it->key == key ? &*it : nullptr;
  };
  RisingSearch flow_start(data.flow_starts.cbegin(), data.flow_starts.cend(),
                          [](int64_t id, int64_t key) { return id < key; });
  RisingSearch flow_end(data.flow_ends.cbegin(), data.flow_ends.cend(),
                        [](const FlowEnd& f, int64_t key) { return f.id < key; });
  for (const auto& launch : data.runtime_launches) {
    int64_t key = key_of(launch.correlation, launch.external_id);
    if (key == kNoKey) continue;
    if (launch.graph_launch) {
      for (auto it = std::lower_bound(gpu_by_key.begin(), gpu_by_key.end(), std::make_pair(key, INT32_MIN));
           it != gpu_by_key.end() && it->first == key; ++it)
        selected[it->second] = true;
      continue;
    }
    const auto start = flow_start(key);
    if (start == data.flow_starts.cend() || *start != key) continue;
    const auto end = flow_end(key);
    if (end == data.flow_ends.cend() || end->id != key) continue;
    // The flow's own id names the target; it equals the launch key by lookup.
    const KeyedEvent* target = find_last(end->thread, end->id);
    if (target && target->gpu_index >= 0) selected[target->gpu_index] = true;
  }
  return selected;
}

std::vector<uint32_t> selected_indices(const std::vector<bool>& selected) {
  std::vector<uint32_t> indices;
  for (size_t i = 0; i < selected.size(); ++i)
    if (selected[i]) indices.push_back(static_cast<uint32_t>(i));
  return indices;
}

Breakdown gpu_breakdown(const TraceData& data, KernelSelection selection) {
  return breakdown_of(data, selected_indices(select_gpu_events(data, selection)));
}

Breakdown breakdown_of(const TraceData& data, const std::vector<uint32_t>& indices) {
  Intervals comp, comm, memcpy;
  comp.reserve(indices.size());
  Breakdown b;
  double first = 0, last = 0;
  for (uint32_t i : indices) {
    const GpuEvent& ev = data.gpu_events[i];
    Intervals& bucket = ev.cls == GpuClass::kCommunication ? comm : ev.cls == GpuClass::kMemcpy ? memcpy : comp;
    bucket.emplace_back(ev.ts, ev.end);
    first = b.selected_events == 0 ? ev.ts : std::min(first, ev.ts);
    last = b.selected_events == 0 ? ev.end : std::max(last, ev.end);
    ++b.selected_events;
  }
  if (b.selected_events == 0) return b;
  comp = merge_intervals(std::move(comp));
  comm = merge_intervals(std::move(comm));
  memcpy = merge_intervals(std::move(memcpy));
  // The union of the three unions is the union of every event: the same intervals,
  // from three sorted runs instead of every event sorted again.
  Intervals all;
  all.reserve(comp.size() + comm.size() + memcpy.size());
  for (const Intervals* part : {&comp, &comm, &memcpy}) all.insert(all.end(), part->begin(), part->end());
  all = merge_intervals(std::move(all));
  b.computation_time = total_length(comp);
  b.total_comm_time = total_length(comm);
  b.exposed_comm_time = total_length(subtract_intervals(comm, comp));
  b.total_memcpy_time = total_length(memcpy);
  b.exposed_memcpy_time = total_length(subtract_intervals(subtract_intervals(memcpy, comp), comm));
  b.comp_comm_overlap_time = total_length(intersect_intervals(comp, comm));
  b.busy_time = total_length(all);
  b.total_time = last - first;
  b.idle_time = b.total_time - b.busy_time;
  return b;
}

}  // namespace aorta::trace
