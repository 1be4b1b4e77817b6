#include "trace/timeline.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>

namespace aorta::trace {

Intervals merge_intervals(Intervals intervals) {
  std::stable_sort(intervals.begin(), intervals.end(),
                   [](const Interval& a, const Interval& b) { return a.first < b.first; });
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

namespace {

struct TripleHash {
  size_t operator()(const std::tuple<int64_t, int64_t, int64_t>& t) const {
    uint64_t h = static_cast<uint64_t>(std::get<0>(t)) * 0x9E3779B97F4A7C15ULL;
    h ^= static_cast<uint64_t>(std::get<1>(t)) + 0x632BE59BD9B4E019ULL + (h << 6) + (h >> 2);
    h ^= static_cast<uint64_t>(std::get<2>(t)) + 0x94D049BB133111EBULL + (h << 6) + (h >> 2);
    return static_cast<size_t>(h);
  }
};

}  // namespace

std::vector<bool> select_gpu_events(const TraceData& data, KernelSelection selection) {
  std::vector<bool> selected(data.gpu_events.size(), selection == KernelSelection::kIncludeUnlinked);
  if (selection == KernelSelection::kIncludeUnlinked) return selected;

  // TraceLens keys links by correlation unless the first launch-named runtime event
  // lacks one, then by External id.
  bool by_correlation = data.link_by_correlation.value_or(false);
  auto key_of = [&](int64_t correlation, int64_t external_id) { return by_correlation ? correlation : external_id; };

  // (pid, tid, key) -> the last event with that triple in file order.
  using Triple = std::tuple<int64_t, int64_t, int64_t>;
  std::unordered_map<Triple, int32_t, TripleHash> last_event;
  std::unordered_map<int64_t, std::vector<int32_t>> gpu_by_key;  // for graph launches
  last_event.reserve(data.keyed_events.size());
  for (const auto& ke : data.keyed_events) {
    int64_t key = key_of(ke.correlation, ke.external_id);
    if (key == kNoKey) continue;
    last_event[{ke.pid, ke.tid, key}] = ke.gpu_index;
    if (ke.gpu_index >= 0) gpu_by_key[key].push_back(ke.gpu_index);
  }
  for (const auto& launch : data.runtime_launches) {
    int64_t key = key_of(launch.correlation, launch.external_id);
    if (key == kNoKey) continue;
    if (launch.graph_launch) {
      if (auto it = gpu_by_key.find(key); it != gpu_by_key.end())
        for (int32_t index : it->second) selected[index] = true;
      continue;
    }
    if (!data.flow_starts.count(key)) continue;
    auto end = data.flow_ends.find(key);
    if (end == data.flow_ends.end()) continue;
    auto target = last_event.find({end->second.pid, end->second.tid, key});
    if (target != last_event.end() && target->second >= 0) selected[target->second] = true;
  }
  return selected;
}

Breakdown gpu_breakdown(const TraceData& data, KernelSelection selection) {
  std::vector<bool> selected = select_gpu_events(data, selection);
  Intervals comp, comm, memcpy, all;
  Breakdown b;
  double first = 0, last = 0;
  for (size_t i = 0; i < data.gpu_events.size(); ++i) {
    if (!selected[i]) continue;
    const GpuEvent& ev = data.gpu_events[i];
    Intervals& bucket = ev.cls == GpuClass::kCommunication ? comm : ev.cls == GpuClass::kMemcpy ? memcpy : comp;
    bucket.emplace_back(ev.ts, ev.end);
    all.emplace_back(ev.ts, ev.end);
    first = b.selected_events == 0 ? ev.ts : std::min(first, ev.ts);
    last = b.selected_events == 0 ? ev.end : std::max(last, ev.end);
    ++b.selected_events;
  }
  if (b.selected_events == 0) return b;
  comp = merge_intervals(std::move(comp));
  comm = merge_intervals(std::move(comm));
  memcpy = merge_intervals(std::move(memcpy));
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
