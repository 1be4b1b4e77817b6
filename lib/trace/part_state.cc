#include "trace/part_state.h"

#include <algorithm>
#include <cmath>

namespace aorta::trace::reader {
namespace {

void add_basic(BasicScan& basic, const RawEvent& ev, BasicClass cls) {
  if (ev.has_ts) {
    double end = ev.ts + (ev.has_dur ? ev.dur : 0);
    if (!basic.has_ts) {
      basic.min_ts = ev.ts;
      basic.max_end = end;
      basic.has_ts = true;
    } else {
      basic.min_ts = std::min(basic.min_ts, ev.ts);
      basic.max_end = std::max(basic.max_end, end);
    }
  }
  if (!(ev.dur > 0)) return;
  switch (cls) {
    case BasicClass::kCommunication:
      basic.comm += ev.dur;
      ++basic.comm_kernels;
      break;
    case BasicClass::kMemory:
      basic.memory += ev.dur;
      break;
    case BasicClass::kComputeKernel:
      basic.compute += ev.dur;
      ++basic.compute_kernels;
      break;
    case BasicClass::kComputeGpu:
      basic.compute += ev.dur;
      break;
    case BasicClass::kOther:
      break;
  }
  basic.total += ev.dur;
}

void add_event(PartState& part, const RawEvent& ev, const NameClasses::Classes& cls) {
  TraceData& data = part.data;
  ThreadInterner& threads = part.threads;
  LargeVector<UndecidedKeyed>& undecided = part.undecided;
  const uint8_t tags = part.deferred ? ev.interned : 0;
  Cat cat = classify_cat(ev.cat);
  if (ev.total_allocated >= 0) data.peak_allocated_bytes = std::max(data.peak_allocated_bytes.value_or(0), ev.total_allocated);
  // A step marker (the GPU-timeline-only read decodes a CPU event's ts and dur when
  // its name is a step's or not yet seen, skip_times). finish keeps one per step.
  if (ev.step >= 0 && cat == Cat::kOther && ev.ph == "X" && ev.has_ts && ev.has_dur && ev.cat != "gpu_user_annotation")
    data.steps.push_back({ev.step, ev.ts, ev.dur});
  if (cat == Cat::kFlow) {
    const bool interned_id = (tags & kIdInterned) != 0;
    if (ev.has_id && ev.ph == "s") (interned_id ? part.interned_flow_starts : data.flow_starts).push_back(ev.id);
    if (ev.has_id && ev.ph == "f")
      data.flow_ends.push_back({ev.id, threads.intern(ev.pid, ev.tid, tags & (kPidInterned | kTidInterned)), interned_id});
    return;
  }
  int32_t gpu_index = -1;
  if ((cat == Cat::kKernel || cat == Cat::kMemcpy || cat == Cat::kMemset) && ev.has_ts && ev.has_dur) {
    gpu_index = static_cast<int32_t>(data.gpu_events.size());
    uint32_t collective = kNoCollective;
    if (ev.has_collective) {
      collective = part.collectives.intern({std::string(ev.collective_name), std::string(ev.dtype), ev.in_nelems,
                                            ev.out_nelems, ev.group_size}, data.collectives);
      if (collective == kCollectivePastLimit) ++data.collectives_over_limit;
    }
    data.gpu_events.push_back({ev.ts, ev.ts + ev.dur, cls.gpu, cls.kind, collective, ev.correlation});
    if (ev.device >= 0) note_device(data, static_cast<int>(ev.device));
    if (!data.cpu_events.empty()) LargeVector<CpuEvent>().swap(data.cpu_events);  // a GPU trace: not needed
  } else if (data.has_basic_scan && cls.cpu != CpuClass::kNone && data.gpu_events.empty() && ev.ph == "X" &&
             ev.has_ts && ev.has_dur && ev.has_pid && ev.has_tid) {
    data.cpu_events.push_back({ev.ts, ev.ts + ev.dur, threads.intern(ev.pid, ev.tid, tags & (kPidInterned | kTidInterned)),
                               cls.cpu});
  }
  if (cat == Cat::kRuntime) {
    data.runtime_launches.push_back({ev.correlation, ev.external_id, ev.ts,
                                     ev.name == "cudaGraphLaunch" || ev.name == "hipGraphLaunch"});
    if (!data.link_by_correlation && cls.launch) {
      data.link_by_correlation = ev.correlation != kNoKey;
      keep_by_link_key(data, *data.link_by_correlation, undecided);
    }
  }
  if (!ev.has_pid || !ev.has_tid) return;
  auto thread = [&] { return threads.intern(ev.pid, ev.tid, tags & (kPidInterned | kTidInterned)); };
  if (!data.link_by_correlation) {
    if (ev.correlation != kNoKey || ev.external_id != kNoKey)
      undecided.push_back({thread(), gpu_index, ev.correlation, ev.external_id});
    return;
  }
  int64_t key = *data.link_by_correlation ? ev.correlation : ev.external_id;
  if (key != kNoKey) data.keyed_events.push_back({thread(), gpu_index, key});
}

// What a vector's elements take. Its unused capacity is left out: those pages are
// never touched, so they cost address space but no memory (the budget's share
// leaves room for the doubling copy).
template <class V>
uint64_t used_bytes(const V& v) {
  return v.size() * sizeof(typename V::value_type);
}

}  // namespace

uint32_t CollectiveInterner::intern(const CollectiveKey& key, std::vector<CollectiveKey>& keys) {
  flat_ = key.name;
  flat_.append(1, '\0').append(key.dtype);
  for (int64_t n : {key.in_nelems, key.out_nelems, key.group_size})
    flat_.append(1, '\0').append(std::to_string(n));
  if (auto it = ids_.find(flat_); it != ids_.end()) return it->second;
  if (keys.size() >= kMaxCollectiveKeys) return kCollectivePastLimit;
  const auto id = static_cast<uint32_t>(keys.size());
  ids_.emplace(flat_, id);
  keys.push_back(key);
  bytes_ += 2 * flat_.size() + 160;  // the map's node and the key's copy, about
  return id;
}

void keep_by_link_key(TraceData& data, bool by_correlation, LargeVector<UndecidedKeyed>& undecided) {
  for (const auto& u : undecided) {
    int64_t key = by_correlation ? u.correlation : u.external_id;
    if (key != kNoKey) data.keyed_events.push_back({u.thread, u.gpu_index, key});
  }
  LargeVector<UndecidedKeyed>().swap(undecided);  // `= {}` would keep the capacity
}

void consume_event(PartState& state, const RawEvent& ev, bool basic) {
  TraceData& data = state.data;
  if (ev.has_dur && (ev.dur < 0 || !std::isfinite(ev.dur))) {
    ++data.negative_durations;
    return;
  }
  if (!basic && !timeline_category(ev.cat)) {
    // Only its link key can matter (the (pid, tid, key) map holds every keyed event).
    static const NameClasses::Classes kNone{BasicClass::kOther, GpuClass::kComputation, false, CpuClass::kNone,
                                            KernelKind::kOtherCompute};
    add_event(state, ev, kNone);
    return;
  }
  const auto cls = state.names.get(ev.cat, ev.name);
  if (basic) add_basic(data.basic, ev, cls.basic);
  add_event(state, ev, cls);
}

uint64_t state_bytes(const PartState& state) {
  const TraceData& data = state.data;
  return used_bytes(data.gpu_events) + used_bytes(data.keyed_events) + used_bytes(data.runtime_launches) +
         used_bytes(data.flow_starts) + used_bytes(data.flow_ends) + used_bytes(state.undecided) +
         data.steps.size() * kStepStateBytes + data.cpu_events.size() * kCpuEventStateBytes +
         used_bytes(state.interned_flow_starts) + state.interner.bytes() + state.threads.bytes() + state.names.bytes() +
         state.collectives.bytes();
}

}  // namespace aorta::trace::reader
