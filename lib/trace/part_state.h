// What one read of a trace collects (the whole file, or one part of a split one):
// its records, the interners behind them, and consume_event, which files one event
// under them. Internal to the reader (trace_reader.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trace/kernel_class.h"
#include "trace/raw_event.h"
#include "trace/trace_reader.h"

namespace aorta::trace::reader {

// Names repeat heavily (the same few hundred ops and kernels thousands of times), so
// their classes are computed once per (cat, name) and looked up afterwards. The
// cache stops growing at kMaxBytes: a trace of millions of distinct names is
// classified name by name instead of taking memory without bound.
class NameClasses {
 public:
  struct Classes {
    BasicClass basic;
    GpuClass gpu;
    bool launch;  // name contains "launch", any case
    CpuClass cpu;
    KernelKind kind;
  };
  Classes get(std::string_view cat, std::string_view name) {
    key_.assign(cat);
    key_.push_back('\0');
    key_.append(name);
    auto it = cache_.find(key_);
    if (it != cache_.end()) return it->second;
    Classes c{classify_basic(cat, name), classify_gpu_event(cat, name), contains_lower(name, "launch"),
              classify_cpu_event(cat, name), classify_kernel_kind(cat, name)};
    if (bytes_ < kMaxBytes) {
      cache_.emplace(key_, c);
      bytes_ += key_.size() + 80;
    }
    return c;
  }
  uint64_t bytes() const { return bytes_ + key_.capacity(); }

 private:
  static constexpr uint64_t kMaxBytes = 16u << 20;
  std::string key_;
  std::unordered_map<std::string, Classes> cache_;
  uint64_t bytes_ = 0;
};

// (pid, tid) pairs, a few hundred per trace, as small integers. Events come in runs
// from one thread, so the last pair is checked before the hash map.
// A part of a split file also tells an interned string's number from the same number
// written as a number (`tags`, kPidInterned | kTidInterned): only the merge knows
// which file-wide numbers its strings get. Reading a file whole, tags are 0.
struct ThreadKey {
  int64_t pid = 0, tid = 0;
  uint8_t tags = 0;
  bool operator==(const ThreadKey&) const = default;
};

class ThreadInterner {
 public:
  uint32_t intern(int64_t pid, int64_t tid, uint8_t tags = 0) {
    const ThreadKey key{pid, tid, tags};
    if (!keys_.empty() && key == keys_[last_id_]) return last_id_;
    auto [it, inserted] = ids_.try_emplace(key, static_cast<uint32_t>(ids_.size()));
    if (inserted) keys_.push_back(key);
    last_id_ = it->second;
    return last_id_;
  }
  uint64_t bytes() const { return ids_.size() * 72; }  // node, hash slot and keys_, about
  const std::vector<ThreadKey>& keys() const { return keys_; }  // by id

 private:
  struct Hash {
    size_t operator()(const ThreadKey& k) const {
      return (std::hash<int64_t>()(k.pid) * 31 + std::hash<int64_t>()(k.tid)) * 31 + k.tags;
    }
  };
  std::unordered_map<ThreadKey, uint32_t, Hash> ids_;
  std::vector<ThreadKey> keys_;
  uint32_t last_id_ = 0;  // the key interned last (when ids_ has any)
};

// Numbers the distinct CollectiveKeys of one read, at most kMaxCollectiveKeys.
class CollectiveInterner {
 public:
  // The key's index in `keys`, kCollectivePastLimit past the limit.
  uint32_t intern(const CollectiveKey& key, std::vector<CollectiveKey>& keys);
  uint64_t bytes() const { return bytes_; }

 private:
  std::unordered_map<std::string, uint32_t> ids_;
  std::string flat_;  // the key as one string, reused
  uint64_t bytes_ = 0;
};

// Keyed events seen before the link key is decided keep both keys; the first launch
// decides which one the rest of the trace needs.
struct UndecidedKeyed {
  uint32_t thread;
  int32_t gpu_index;
  int64_t correlation, external_id;
};

// The undecided events' keyed records, by the key the first launch decided.
void keep_by_link_key(TraceData& data, bool by_correlation, LargeVector<UndecidedKeyed>& undecided);

// One more GPU event's args.device: the first is kept; another index marks the trace mixed.
inline void note_device(TraceData& data, int device) {
  if (!data.gpu_device)
    data.gpu_device = device;
  else if (*data.gpu_device != device)
    data.gpu_devices_mixed = true;
}

// What one read (the whole file, or a part of a split one) collects. A part decides
// the link key by its own first launch, as a whole read does by the file's (a part
// that decided otherwise than the file's first launch is read again with the file's
// key, read_parts), and its keyed events before its first launch keep both keys until
// then. Its interned ids stay tagged (RawEvent::interned) until the merge renumbers
// them.
struct PartState {
  explicit PartState(bool deferred) : deferred(deferred) {}
  const bool deferred;
  TraceData data;
  IdInterner interner;
  NameClasses names;
  ThreadInterner threads;
  CollectiveInterner collectives;
  LargeVector<UndecidedKeyed> undecided;
  LargeVector<int64_t> interned_flow_starts;  // parts only: "s" ids that were strings
  std::string distributed_info;
  bool has_distributed_info = false;
};

// Files one event under the state's records (a skipped negative duration counts).
void consume_event(PartState& state, const RawEvent& ev, bool basic);

// Everything that grows with the events, as the memory budget counts it: steps and
// CPU events at what they cost by the end of the analysis (trace_limits.h).
uint64_t state_bytes(const PartState& state);

}  // namespace aorta::trace::reader
