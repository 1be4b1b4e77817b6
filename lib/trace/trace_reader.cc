#include "trace/trace_reader.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <cmath>
#include <memory>
#include <system_error>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <string_view>

#include <simdjson.h>

#include "common/run_both.h"
#include "common/utf8.h"
#include "trace/byte_source.h"
#include "trace/event_scanner.h"
#include "trace/sort_runs.h"

namespace aorta::trace {
namespace {

using simdjson::ondemand::json_type;

enum class Cat { kKernel, kMemcpy, kMemset, kRuntime, kFlow, kOther };

Cat classify_cat(std::string_view cat) {
  if (cat == "kernel") return Cat::kKernel;
  if (cat == "gpu_memcpy") return Cat::kMemcpy;
  if (cat == "gpu_memset") return Cat::kMemset;
  if (cat == "cuda_runtime" || cat == "cuda_driver") return Cat::kRuntime;
  if (cat == "ac2g") return Cat::kFlow;
  return Cat::kOther;
}

// pid and tid are numbers in GPU and CPU events but strings in a few special rows
// ("Spans", "Traces"); strings are interned to negative ids.
class IdInterner {
 public:
  int64_t intern(std::string_view text) {
    auto it = ids_.find(std::string(text));
    if (it != ids_.end()) return it->second;
    int64_t id = -static_cast<int64_t>(ids_.size()) - 1;
    ids_.emplace(std::string(text), id);
    strings_.emplace_back(text);
    bytes_ += 2 * text.size() + kEntryBytes;
    return id;
  }
  uint64_t bytes() const { return bytes_; }
  // In the order interned: strings()[i] is the id -(i + 1).
  const std::vector<std::string>& strings() const { return strings_; }

 private:
  static constexpr uint64_t kEntryBytes = 112;  // node, hash slot, two string headers, about
  std::unordered_map<std::string, int64_t> ids_;
  std::vector<std::string> strings_;
  uint64_t bytes_ = 0;
};

// Which of an event's ids were strings, interned to negative numbers: a part of a
// split file interns on its own, and its numbers are renumbered when parts merge.
enum : uint8_t { kPidInterned = 1, kTidInterned = 2, kIdInterned = 4 };

// One event's fields; string views point into the parser and die with the document.
struct RawEvent {
  std::string_view ph, cat, name;
  bool has_pid = false, has_tid = false, has_ts = false, has_dur = false, has_id = false, has_name = false;
  uint8_t interned = 0;
  int64_t pid = 0, tid = 0, id = 0;
  double ts = 0, dur = 0;
  int64_t correlation = kNoKey, external_id = kNoKey;
  int64_t step = -1;  // N of a name ProfilerStep#N, else -1
  double total_allocated = -1;  // args."Total Allocated", else -1
};

// N of "ProfilerStep#N" (decimal digits only), else -1. `name` is a decoded string,
// or the raw bytes after a JSON string's opening quote up to its closing one.
int64_t profiler_step_number(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.size() <= kPrefix.size() || name[0] != 'P' || !name.starts_with(kPrefix)) return -1;
  std::string_view digits = name.substr(kPrefix.size());
  if (digits.size() > 18) return -1;  // fits int64 without overflow checks
  int64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

// The same on a string value, left undecoded where it can be: the GPU-timeline-only
// read does not need CPU events' names. A name that holds an escape within a step
// name's length (ProfilerStep\u00233 is a writer's right) is decoded, as a JSON parser
// would, so that every spelling of a step is one.
int64_t step_number_of(simdjson::ondemand::value value) {
  // "ProfilerStep#" and 18 digits, each character possibly written as \uXXXX.
  constexpr size_t kLongestRawName = 6 * 31;
  const std::string_view token = value.raw_json_token();  // a peek: the string with its quotes
  if (token.size() < 2 || token[0] != '"' || (token[1] != 'P' && token[1] != '\\')) return -1;
  const std::string_view head = token.substr(1, kLongestRawName);
  const size_t stop = head.find_first_of("\"\\");
  if (stop == std::string_view::npos) return -1;  // longer than any step name
  if (head[stop] == '"') return profiler_step_number(head.substr(0, stop));
  std::string_view decoded;
  if (value.get_string().get(decoded) != simdjson::SUCCESS) return -1;
  return profiler_step_number(decoded);
}

simdjson::error_code read_id(simdjson::ondemand::value value, int64_t& out, IdInterner& interner, uint8_t& interned,
                             uint8_t bit) {
  json_type type;
  if (auto e = value.type().get(type)) return e;
  if (type == json_type::string) {
    std::string_view s;
    if (auto e = value.get_string().get(s)) return e;
    out = interner.intern(s);
    interned |= bit;
    return simdjson::SUCCESS;
  }
  if (type == json_type::number) {
    double d;
    int64_t i;
    if (value.get_int64().get(i) == simdjson::SUCCESS) {
      out = i;
      interned &= static_cast<uint8_t>(~bit);
      return simdjson::SUCCESS;
    }
    if (auto e = value.get_double().get(d)) return e;
    out = static_cast<int64_t>(d);
    interned &= static_cast<uint8_t>(~bit);
    return simdjson::SUCCESS;
  }
  return simdjson::INCORRECT_TYPE;
}

simdjson::error_code read_args(simdjson::ondemand::value value, RawEvent& ev) {
  simdjson::ondemand::object args;
  if (value.get_object().get(args) != simdjson::SUCCESS) return simdjson::SUCCESS;  // non-object args: ignore
  for (auto field : args) {
    simdjson::ondemand::raw_json_string key;
    if (auto e = field.key().get(key)) return e;
    bool correlation = key.unsafe_is_equal("correlation");
    if (correlation || key.unsafe_is_equal("External id")) {
      int64_t v;
      if (field.value().get_int64().get(v) != simdjson::SUCCESS) continue;
      (correlation ? ev.correlation : ev.external_id) = v;
    } else if (key.unsafe_is_equal("Total Allocated")) {
      double v;
      if (field.value().get_double().get(v) == simdjson::SUCCESS && std::isfinite(v) && v >= 0) ev.total_allocated = v;
    }
  }
  return simdjson::SUCCESS;
}

// Whether the gpu_timeline can use an event of this category at all.
bool timeline_category(std::string_view cat) { return classify_cat(cat) != Cat::kOther; }

// Whether the GPU-timeline-only read may leave ts and dur undecoded: the event is
// outside the timeline and its name, already read, is no step's. Before the name
// they are decoded: a writer may order the keys as it likes (sorted: "dur" first).
bool skip_times(const RawEvent& ev, bool basic) {
  return !basic && ev.has_name && ev.step < 0 && !ev.cat.empty() && !timeline_category(ev.cat);
}

simdjson::error_code read_event(simdjson::ondemand::object obj, RawEvent& ev, IdInterner& interner, bool basic) {
  // Raw key comparison: the keys we read never hold escapes, and unescaping every
  // key of every event was a large share of the per-event cost.
  for (auto field : obj) {
    simdjson::ondemand::raw_json_string key;
    if (auto e = field.key().get(key)) return e;
    simdjson::ondemand::value value;
    if (auto e = field.value().get(value)) return e;
    // Dispatch on the key's first character: one branch instead of a chain of
    // string compares. raw() points just past the opening quote.
    switch (key.raw()[0]) {
      case 'p':
        if (key.unsafe_is_equal("ph")) {
          if (auto e = value.get_string().get(ev.ph)) return e;
        } else if (key.unsafe_is_equal("pid")) {
          if (auto e = read_id(value, ev.pid, interner, ev.interned, kPidInterned)) return e;
          ev.has_pid = true;
        }
        break;
      case 'c':
        if (key.unsafe_is_equal("cat"))
          if (auto e = value.get_string().get(ev.cat)) return e;
        break;
      case 'n':
        if (!key.unsafe_is_equal("name")) break;
        ev.has_name = true;
        if (!basic && !ev.cat.empty() && !timeline_category(ev.cat)) {
          // Not needed but for a step marker.
          ev.step = step_number_of(value);
          break;
        }
        if (value.get_string().get(ev.name) != simdjson::SUCCESS) ev.name = {};
        ev.step = profiler_step_number(ev.name);
        break;
      case 't':
        if (key.unsafe_is_equal("tid")) {
          if (auto e = read_id(value, ev.tid, interner, ev.interned, kTidInterned)) return e;
          ev.has_tid = true;
        } else if (skip_times(ev, basic)) {
          break;
        } else if (key.unsafe_is_equal("ts")) {
          if (auto e = value.get_double().get(ev.ts)) return e;
          ev.has_ts = true;
        }
        break;
      case 'd':
        if (skip_times(ev, basic)) break;
        if (key.unsafe_is_equal("dur")) {
          if (auto e = value.get_double().get(ev.dur)) return e;
          ev.has_dur = true;
        }
        break;
      case 'i':
        if (key.unsafe_is_equal("id") && read_id(value, ev.id, interner, ev.interned, kIdInterned) == simdjson::SUCCESS) ev.has_id = true;
        break;
      case 'a':
        if (key.unsafe_is_equal("args"))
          if (auto e = read_args(value, ev)) return e;
        break;
      default:
        break;
    }
  }
  return simdjson::SUCCESS;
}

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
  };
  Classes get(std::string_view cat, std::string_view name) {
    key_.assign(cat);
    key_.push_back('\0');
    key_.append(name);
    auto it = cache_.find(key_);
    if (it != cache_.end()) return it->second;
    Classes c{classify_basic(cat, name), classify_gpu_event(cat, name), contains_lower(name, "launch"),
              classify_cpu_event(cat, name)};
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

// Keyed events seen before the link key is decided keep both keys; the first launch
// decides which one the rest of the trace needs.
struct UndecidedKeyed {
  uint32_t thread;
  int32_t gpu_index;
  int64_t correlation, external_id;
};

void keep_by_link_key(TraceData& data, bool by_correlation, LargeVector<UndecidedKeyed>& undecided) {
  for (const auto& u : undecided) {
    int64_t key = by_correlation ? u.correlation : u.external_id;
    if (key != kNoKey) data.keyed_events.push_back({u.thread, u.gpu_index, key});
  }
  LargeVector<UndecidedKeyed>().swap(undecided);  // `= {}` would keep the capacity
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
  LargeVector<UndecidedKeyed> undecided;
  LargeVector<int64_t> interned_flow_starts;  // parts only: "s" ids that were strings
  std::string distributed_info;
  bool has_distributed_info = false;
};

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
    data.gpu_events.push_back({ev.ts, ev.ts + ev.dur, cls.gpu, ev.correlation});
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

// distributedInfo is the file's own claim; a rank that cannot be a rank of the run
// would misplace or hide this file's numbers, so it is refused, not guessed at.
Status read_distributed_info(std::string_view text, simdjson::ondemand::parser& parser, TraceData& data) {
  simdjson::padded_string padded(text);
  simdjson::ondemand::document doc;
  int64_t rank = -1, world_size = -1;
  bool has_rank = false, has_world = false;
  if (parser.iterate(padded).get(doc) == simdjson::SUCCESS && doc["rank"].get_int64().get(rank) == simdjson::SUCCESS)
    has_rank = true;
  if (parser.iterate(padded).get(doc) == simdjson::SUCCESS &&
      doc["world_size"].get_int64().get(world_size) == simdjson::SUCCESS)
    has_world = true;
  constexpr int64_t kMaxRanks = int64_t{1} << 24;
  if (has_world && (world_size < 1 || world_size > kMaxRanks))
    return Error{ErrorCode::kInvalidInput,
                 "distributedInfo.world_size " + std::to_string(world_size) + " is out of range (1 to " +
                     std::to_string(kMaxRanks) + ")",
                 ""};
  const int64_t limit = has_world ? world_size : kMaxRanks;
  if (has_rank && (rank < 0 || rank >= limit))
    return Error{ErrorCode::kInvalidInput,
                 "distributedInfo.rank " + std::to_string(rank) + " is out of range (0 to " + std::to_string(limit - 1) +
                     (has_world ? ", world_size " + std::to_string(world_size) : std::string()) + ")",
                 ""};
  if (has_rank) data.rank = static_cast<int>(rank);
  if (has_world) data.world_size = static_cast<int>(world_size);
  return ok_status();
}

// Reads the whole file (`scan` empty) or one part of it into `state`. `stop` ends a
// part early when another part has failed. `parser` is the thread's: its buffers,
// grown to the batches' size, serve every part the thread reads.
Status read_into(PartState& state, simdjson::ondemand::parser& parser, const std::filesystem::path& file, bool basic,
                 const TraceLimits& limits, uint64_t max_state_bytes, const ScanPart* scan_part,
                 const std::atomic<bool>* stop) {
  TraceData& data = state.data;
  data.has_basic_scan = basic;
  IdInterner& interner = state.interner;
  NameClasses& names = state.names;
  ThreadInterner& threads = state.threads;
  LargeVector<UndecidedKeyed>& undecided = state.undecided;
  ScanCallbacks callbacks;
  callbacks.on_metadata = [&](std::string_view key, std::string_view text) {
    if (key == "distributedInfo") {
      state.distributed_info.assign(text);
      state.has_distributed_info = true;
    }
  };
  auto consume = [&](const RawEvent& ev) {
    if (ev.has_dur && (ev.dur < 0 || !std::isfinite(ev.dur))) {
      ++data.negative_durations;
      return;
    }
    if (!basic && !timeline_category(ev.cat)) {
      // Only its link key can matter (the (pid, tid, key) map holds every keyed event).
      static const NameClasses::Classes kNone{BasicClass::kOther, GpuClass::kComputation, false, CpuClass::kNone};
      add_event(state, ev, kNone);
      return;
    }
    const auto cls = names.get(ev.cat, ev.name);
    if (basic) add_basic(data.basic, ev, cls.basic);
    add_event(state, ev, cls);
  };
  // One event on its own: the slow path, used to name the event a batch failed on.
  auto parse_one = [&](const EventBatch& batch, const EventRef& ref) -> Status {
    RawEvent ev;
    simdjson::ondemand::document doc;
    simdjson::ondemand::object obj;
    const char* bytes = batch.buffer + ref.start;
    auto e = parser.iterate(bytes, ref.size, batch.buffer_size - ref.start).get(doc);
    if (!e) e = doc.get_object().get(obj);
    if (!e) e = read_event(obj, ev, interner, basic);
    if (e)
      return Error{ErrorCode::kInvalidInput,
                   "event at byte " + std::to_string(ref.offset) + " is not valid JSON (" + simdjson::error_message(e) +
                       "): " + valid_utf8(utf8_prefix(std::string_view(bytes, ref.size), 80)),
                   ""};
    consume(ev);
    return ok_status();
  };
  auto parse_batch = [&](const EventBatch& batch) -> Status {
    const auto& refs = *batch.events;
    // The chunk's events become one JSON array: '[' and ']' go over the separator
    // bytes around them (restored below), and simdjson indexes the whole batch at
    // once instead of starting over for every small event.
    char* open = batch.buffer + refs.front().start - 1;
    char* close = batch.buffer + refs.back().start + refs.back().size;
    const char saved_open = *open, saved_close = *close;
    *open = '[';
    *close = ']';
    size_t done = 0;
    simdjson::error_code failed = simdjson::SUCCESS;
    simdjson::ondemand::document doc;
    simdjson::ondemand::array array;
    const size_t length = static_cast<size_t>(close + 1 - open);
    // simdjson reallocates whenever a document outgrows the last one; doubling makes
    // that rare, as chunk batches differ by a few bytes. Past a few chunks (an event
    // near the token limit) only what is needed: simdjson takes several bytes per byte.
    const size_t want = length <= (16u << 20) ? 2 * length : length + (1u << 20);
    if (length > parser.capacity() && parser.allocate(want) != simdjson::SUCCESS)
      return Error{ErrorCode::kIo, "out of memory for a batch of " + std::to_string(length) + " bytes", ""};
    failed = parser.iterate(open, length, batch.buffer_size - (open - batch.buffer)).get(doc);
    if (!failed) failed = doc.get_array().get(array);
    if (!failed) {
      for (auto element : array) {
        simdjson::ondemand::object obj;
        RawEvent ev;
        if ((failed = element.get_object().get(obj))) break;
        if ((failed = read_event(obj, ev, interner, basic))) break;
        consume(ev);
        ++done;
      }
    }
    *open = saved_open;
    *close = saved_close;
    if (!failed && done == refs.size()) return ok_status();
    for (size_t i = done; i < refs.size(); ++i)
      if (Status st = parse_one(batch, refs[i]); !st) return st;
    return ok_status();
  };
  // Everything that grows with the events, checked once per batch (a read chunk
  // adds at most a few MiB): beyond the budget the file is refused by name. A part
  // of a split file has its share of the budget. Steps and CPU events count at what
  // they cost by the end of the analysis (trace_limits.h).
  auto state_bytes = [&] {
    return used_bytes(data.gpu_events) + used_bytes(data.keyed_events) + used_bytes(data.runtime_launches) +
           used_bytes(data.flow_starts) + used_bytes(data.flow_ends) + used_bytes(undecided) +
           data.steps.size() * kStepStateBytes + data.cpu_events.size() * kCpuEventStateBytes +
           used_bytes(state.interned_flow_starts) + interner.bytes() + threads.bytes() + names.bytes();
  };
  auto within_budget = [&]() -> Status {
    if (state_bytes() <= max_state_bytes) return ok_status();
    auto count = [](size_t n, const char* what) { return n == 0 ? std::string() : " and " + std::to_string(n) + what; };
    return Error{ErrorCode::kInvalidInput,
                 "the trace needs more event state than the memory budget allows (" +
                     std::to_string(limits.max_state_bytes >> 20) + " MiB of " + std::to_string(limits.total_bytes >> 20) +
                     " MiB, reached after " + std::to_string(data.gpu_events.size()) + " GPU events and " +
                     std::to_string(data.keyed_events.size() + undecided.size()) + " keyed events" +
                     count(data.cpu_events.size(), " CPU events") + count(data.steps.size(), " ProfilerStep annotations") +
                     "; AORTA_TRACE_MEMORY_LIMIT raises it)",
                 file.string()};
  };
  callbacks.on_events = [&](const EventBatch& batch) -> Status {
    if (stop && stop->load(std::memory_order_relaxed))
      return Error{ErrorCode::kInvalidInput, "stopped: another part of the file failed", file.string()};
    const Status processed = parse_batch(batch);
    if (!processed) return processed;
    return within_budget();
  };
  auto scanned = scan_part ? scan_trace_part(file, callbacks, {"distributedInfo"}, limits.max_token_bytes, *scan_part)
                           : scan_trace(file, callbacks, {"distributedInfo"}, limits.max_token_bytes);
  if (!scanned) return scanned.error();
  data.bytes = scanned->bytes;
  data.events = scanned->events;
  data.legacy_array = scanned->legacy_array;
  return ok_status();
}

// Numbers the threads of keyed events and flow ends by their (pid, tid) values,
// counting only the threads they use, and returns how many that is. The interner's
// first-seen numbers differ between a whole and a split read: a part with no launch
// yet keeps events with either key, so it sees threads a whole read never numbers.
uint32_t number_threads_by_value(TraceData& data, const std::vector<ThreadKey>& keys) {
  std::vector<char> used(keys.size(), 0);
  for (const auto& e : data.keyed_events) used[e.thread] = 1;
  for (const auto& f : data.flow_ends) used[f.thread] = 1;
  std::vector<uint32_t> order;
  for (uint32_t t = 0; t < keys.size(); ++t)
    if (used[t]) order.push_back(t);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return keys[a].pid != keys[b].pid ? keys[a].pid < keys[b].pid : keys[a].tid < keys[b].tid;
  });
  std::vector<uint32_t> number(keys.size(), 0);
  for (uint32_t i = 0; i < order.size(); ++i) number[order[i]] = i;
  for (auto& e : data.keyed_events) e.thread = number[e.thread];
  for (auto& f : data.flow_ends) f.thread = number[f.thread];
  return static_cast<uint32_t>(order.size());
}

// One annotation per step (TraceData::steps, DroppedSteps). Sorted by start, the
// longer first, a step lies inside an earlier one exactly when it lies inside the
// last one kept, which ends the latest of them.
void keep_one_annotation_per_step(TraceData& data) {
  std::vector<StepAnnotation>& steps = data.steps;
  std::stable_sort(steps.begin(), steps.end(), [](const StepAnnotation& a, const StepAnnotation& b) {
    return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur;
  });
  DroppedSteps& dropped = data.dropped_steps;
  size_t kept = 0;
  for (const StepAnnotation s : steps) {
    if (kept > 0) {
      const StepAnnotation& last = steps[kept - 1];
      const double end = s.ts + s.dur, last_end = last.ts + last.dur;
      if (s.number == last.number && s.ts == last.ts && s.dur == last.dur) {
        if (dropped.duplicates++ == 0) dropped.first_duplicate = s;
        continue;
      }
      if (s.ts < last_end && end <= last_end) {
        if (dropped.nested++ == 0) {
          dropped.first_nested = s;
          dropped.first_nested_in = last;
        }
        continue;
      }
    }
    steps[kept++] = s;
  }
  steps.resize(kept);
}

// What follows the last event, for a whole file and a merged split one alike.
Result<TraceData> finish(PartState& state, const std::filesystem::path& file, unsigned threads) {
  TraceData& data = state.data;
  if (!data.link_by_correlation) keep_by_link_key(data, false, state.undecided);  // TraceLens's default
  const uint32_t thread_count = number_threads_by_value(data, state.threads.keys());
  // By (thread, key): threads interleave in the file, but each thread's keys rise in
  // a few runs (74 descents in the 1 GB bench trace, 950,086 keyed events).
  auto keyed = [&] {
    stable_sort_grouped(
        data.keyed_events, thread_count, [](const KeyedEvent& e) { return e.thread; },
        [](const KeyedEvent& a, const KeyedEvent& b) { return a.key < b.key; });
  };
  auto flows = [&] {
    stable_sort_runs(data.flow_starts, std::less<int64_t>());
    data.flow_starts.erase(std::unique(data.flow_starts.begin(), data.flow_starts.end()), data.flow_starts.end());
    // Last "f" per id wins: the stable sort keeps file order within an id; keep the
    // last of each id, in place.
    stable_sort_runs(data.flow_ends, [](const FlowEnd& a, const FlowEnd& b) { return a.id < b.id; });
    size_t kept = 0;
    for (size_t i = 0; i < data.flow_ends.size(); ++i)
      if (i + 1 == data.flow_ends.size() || data.flow_ends[i + 1].id != data.flow_ends[i].id)
        data.flow_ends[kept++] = data.flow_ends[i];
    data.flow_ends.resize(kept);
  };
  run_both(keyed, flows, threads);
  keep_one_annotation_per_step(data);
  if (!state.distributed_info.empty()) {
    simdjson::ondemand::parser parser;
    if (Status s = read_distributed_info(state.distributed_info, parser, data); !s)
      return Error{s.error().code, s.error().message, file.string()};
  }
  return std::move(data);
}

// Room in a read's arrays up front for `bytes` of trace (with `all`; else only keyed
// events), at about 1.5x to 2x the densities of the 1 GB bench trace, made from a real
// one: per KB 0.91 keyed events, 0.18 GPU events, 0.73 launches, 0.24 flow starts and
// 0.67 flow ends. Address space, its pages touched as they fill; without it a vector
// copies itself as it grows, and every copy touches fresh memory, whose first touch is
// a page fault that clears the page (a third of the read time on a VM, measured). Only
// a hint: all of it within `budget` (and an eighth of a finite address-space limit),
// none where the address space is short.
void reserve_for(TraceData& data, uint64_t bytes, bool all, uint64_t budget) {
  struct Room {
    uint64_t keyed, gpu, launches, starts, ends;
  } room{bytes / 512, bytes / 2048, bytes / 768, bytes / 2048, bytes / 768};
  if (!all) room = {room.keyed, 0, 0, 0, 0};
  rlimit address_space{};
  if (::getrlimit(RLIMIT_AS, &address_space) == 0 && address_space.rlim_cur != RLIM_INFINITY)
    budget = std::min<uint64_t>(budget, address_space.rlim_cur / 8);
  const double wanted = static_cast<double>(room.keyed) * sizeof(KeyedEvent) +
                        static_cast<double>(room.gpu) * sizeof(GpuEvent) +
                        static_cast<double>(room.launches) * sizeof(RuntimeLaunch) +
                        static_cast<double>(room.starts) * sizeof(int64_t) + static_cast<double>(room.ends) * sizeof(FlowEnd);
  if (wanted > static_cast<double>(budget)) {
    const double scale = static_cast<double>(budget) / wanted;
    for (uint64_t* n : {&room.keyed, &room.gpu, &room.launches, &room.starts, &room.ends})
      *n = static_cast<uint64_t>(static_cast<double>(*n) * scale);
  }
  try {
    data.keyed_events.reserve(room.keyed);
    data.gpu_events.reserve(room.gpu);
    data.runtime_launches.reserve(room.launches);
    data.flow_starts.reserve(room.starts);
    data.flow_ends.reserve(room.ends);
  } catch (const std::exception&) {
  }
}

// Where to split a plain file into equal parts (TraceSplit): the '{' of an element
// of traceEvents near each share, found by a cheap look at the bytes there ('}', ','
// and '{' with only whitespace between). A guess inside a string is caught when the
// part before it is scanned (ScanPart). Empty: no split (too small, compressed, or no
// element found near a share).
std::vector<ScanPart> plan_parts(const std::filesystem::path& file, const TraceSplit& split) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(file, ec);
  if (ec || split.threads < 2 || detect_encoding(file) != TraceEncoding::kPlain) return {};
  const uint64_t parts = std::min<uint64_t>(split.threads, size / std::max<uint64_t>(1, split.min_part_bytes));
  if (parts < 2) return {};
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::vector<char> window(1u << 20);
  auto is_space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  // The top-level value: a bare array (torch 1.13) or an object.
  ssize_t n = ::pread(fd, window.data(), window.size(), 0);
  ssize_t first = 0;
  while (first < n && is_space(window[first])) ++first;
  const bool legacy = first < n && window[first] == '[';
  std::vector<ScanPart> out;
  if (first < n && (window[first] == '[' || window[first] == '{')) {
    uint64_t begin = 0;
    for (uint64_t k = 1; k < parts; ++k) {
      const uint64_t target = std::max(size / parts * k, begin + 1);
      n = ::pread(fd, window.data(), window.size(), static_cast<off_t>(target));
      uint64_t found = 0;
      for (ssize_t i = 0; i < n && !found; ++i) {
        if (window[i] != '}') continue;
        ssize_t j = i + 1;
        while (j < n && is_space(window[j])) ++j;
        if (j >= n || window[j] != ',') continue;
        ++j;
        while (j < n && is_space(window[j])) ++j;
        if (j < n && window[j] == '{') found = target + static_cast<uint64_t>(j);
      }
      if (!found) continue;  // one part fewer
      out.push_back({begin, found, legacy});
      begin = found;
    }
    if (!out.empty()) out.push_back({begin, UINT64_MAX, legacy});
  }
  ::close(fd);
  return out;
}

// The parts' records in file order, as one read of the whole file would have made
// them: `decided` is the link key the file's first launch decided, which every part
// that saw a launch has used too (read_parts); interned ids get the numbers a whole
// read gives them (first seen, first numbered); (pid, tid) pairs are numbered again
// (finish numbers them by value). The first part's
// records stay where they are, its arrays reserved for the whole file (numbered as
// the merge numbers them, as it was read first); the later parts' are appended in two
// halves of about equal size (GPU events and launches; keyed events and flows), the
// second on a thread of its own when `threads` allows. Fresh memory is what costs
// here: every first touch of a page is a fault.
PartState merge_parts(std::vector<std::unique_ptr<PartState>>& parts, std::optional<bool> decided, unsigned threads) {
  const bool by_correlation = decided.value_or(false);
  PartState out(false);
  TraceData& data = out.data;
  // Each part's interned ids and threads in the merged numbering, in file order.
  std::vector<std::vector<int64_t>> ids(parts.size());
  std::vector<std::vector<uint32_t>> thread(parts.size());
  std::vector<int32_t> gpu_offset;  // each part's first GPU event in the merged gpu_events
  size_t gpu = 0, launches = 0, keyed = 0, starts = 0, ends = 0;
  // Part i's id `v` in the merged numbering (a string's part-local number renumbered).
  auto id = [&](size_t i, int64_t v, bool interned) { return interned ? ids[i][static_cast<size_t>(-(v + 1))] : v; };
  for (size_t i = 0; i < parts.size(); ++i) {
    PartState& p = *parts[i];
    for (const auto& s : p.interner.strings()) ids[i].push_back(out.interner.intern(s));
    for (const auto& k : p.threads.keys())
      thread[i].push_back(out.threads.intern(id(i, k.pid, k.tags & kPidInterned), id(i, k.tid, k.tags & kTidInterned)));
    gpu_offset.push_back(static_cast<int32_t>(gpu));
    gpu += p.data.gpu_events.size();
    launches += p.data.runtime_launches.size();
    keyed += p.data.keyed_events.size() + p.undecided.size();
    starts += p.data.flow_starts.size() + p.interned_flow_starts.size();
    ends += p.data.flow_ends.size();
    if (p.has_distributed_info) {
      out.distributed_info = std::move(p.distributed_info);
      out.has_distributed_info = true;
    }
  }
  // The first part's records are the destination; its own fields are the start.
  data = std::move(parts.front()->data);
  data.link_by_correlation = decided;
  for (size_t i = 1; i < parts.size(); ++i) {
    const TraceData& p = parts[i]->data;
    data.steps.insert(data.steps.end(), p.steps.begin(), p.steps.end());
    if (p.peak_allocated_bytes)
      data.peak_allocated_bytes = std::max(data.peak_allocated_bytes.value_or(0), *p.peak_allocated_bytes);
    data.negative_durations += p.negative_durations;
    data.events += p.events;
    data.bytes += p.bytes;
  }
  auto gpu_and_launches = [&] {
    data.gpu_events.reserve(gpu);
    data.runtime_launches.reserve(launches);
    for (size_t i = 1; i < parts.size(); ++i) {
      TraceData& p = parts[i]->data;
      data.gpu_events.insert(data.gpu_events.end(), p.gpu_events.begin(), p.gpu_events.end());
      LargeVector<GpuEvent>().swap(p.gpu_events);
      data.runtime_launches.insert(data.runtime_launches.end(), p.runtime_launches.begin(), p.runtime_launches.end());
      LargeVector<RuntimeLaunch>().swap(p.runtime_launches);
    }
  };
  auto keyed_and_flows = [&] {
    // The first part's threads keep their numbers unless two of its (pid, tid)
    // pairs are one in the file (a string id and the same number written as one).
    bool renumber_first = false;
    for (size_t t = 0; t < thread[0].size(); ++t) renumber_first |= thread[0][t] != t;
    if (renumber_first) {
      for (auto& k : data.keyed_events) k.thread = thread[0][k.thread];
      for (auto& f : data.flow_ends) f.thread = thread[0][f.thread];
    }
    for (auto& f : data.flow_ends) f.interned = false;  // its strings were numbered first: the same numbers
    data.keyed_events.reserve(keyed);
    data.flow_starts.reserve(starts);
    data.flow_ends.reserve(ends);
    for (size_t i = 0; i < parts.size(); ++i) {
      PartState& p = *parts[i];
      // Before a part's first launch, both keys (undecided); after it, the key.
      for (const auto& u : p.undecided) {
        const int64_t key = by_correlation ? u.correlation : u.external_id;
        if (key != kNoKey) data.keyed_events.push_back({thread[i][u.thread], u.gpu_index < 0 ? -1 : u.gpu_index + gpu_offset[i], key});
      }
      LargeVector<UndecidedKeyed>().swap(p.undecided);
      for (int64_t v : p.interned_flow_starts) data.flow_starts.push_back(id(i, v, true));
      if (i == 0) continue;
      for (const auto& k : p.data.keyed_events)
        data.keyed_events.push_back({thread[i][k.thread], k.gpu_index < 0 ? -1 : k.gpu_index + gpu_offset[i], k.key});
      LargeVector<KeyedEvent>().swap(p.data.keyed_events);
      data.flow_starts.insert(data.flow_starts.end(), p.data.flow_starts.begin(), p.data.flow_starts.end());
      for (const auto& f : p.data.flow_ends) data.flow_ends.push_back({id(i, f.id, f.interned), thread[i][f.thread], false});
    }
  };
  run_both(gpu_and_launches, keyed_and_flows, threads);
  data.parts = static_cast<unsigned>(parts.size());
  return out;
}

// The parts on `threads` threads (this one among them), each taking the next part
// as it finishes one. Empty when a part failed (damaged JSON, a wrong guess at a
// split point, its share of the budget): the caller reads the file whole, which
// finds the error a whole read finds, with the same words.
std::optional<PartState> read_parts(const std::filesystem::path& file, bool basic, const TraceLimits& limits,
                                    const std::vector<ScanPart>& plan, unsigned threads) {
  std::error_code ec;
  const uint64_t file_bytes = std::filesystem::file_size(file, ec);
  const uint64_t share = limits.max_state_bytes / plan.size();  // each part's of the budget
  auto new_part = [&](size_t i) {
    auto part = std::make_unique<PartState>(true);
    const uint64_t end = plan[i].end != UINT64_MAX ? plan[i].end : file_bytes;
    // The first part's arrays become the merged ones: room for the whole file's
    // records there, so the merge appends without moving them.
    if (!ec && end > plan[i].begin)
      reserve_for(part->data, i == 0 ? file_bytes : end - plan[i].begin, i == 0, i == 0 ? limits.max_state_bytes : share);
    return part;
  };
  std::vector<std::unique_ptr<PartState>> parts;
  for (size_t i = 0; i < plan.size(); ++i) parts.push_back(new_part(i));
  // A part no thread got to (none could be had, or one stopped early) stays "not
  // read" and makes the file be read whole.
  std::vector<Status> results(plan.size(), Status(Error{ErrorCode::kIo, "part not read", file.string()}));
  std::atomic<bool> stop{false};
  std::atomic<size_t> next{0};
  // Nothing may leave a thread (std::terminate): any failure is the part's, and a
  // failed part makes the caller read the file whole, which names the error.
  auto work = [&]() noexcept {
    std::optional<simdjson::ondemand::parser> parser;
    try {
      parser.emplace();
    } catch (...) {
      return;
    }
    for (size_t i; !stop && (i = next.fetch_add(1)) < plan.size();) {
      try {
        results[i] = read_into(*parts[i], *parser, file, basic, limits, share, &plan[i], &stop);
      } catch (const std::bad_alloc&) {
        results[i] = Error{ErrorCode::kIo, "out of memory", file.string()};
      } catch (...) {
        results[i] = Error{ErrorCode::kIo, "reading a part failed", file.string()};
      }
      if (!results[i]) stop = true;
    }
  };
  // Every started thread is joined on every way out of this block; a thread that
  // cannot be had leaves its parts to the others.
  std::vector<std::thread> helpers;
  struct JoinAll {
    std::vector<std::thread>& threads;
    ~JoinAll() {
      for (auto& t : threads)
        if (t.joinable()) t.join();
    }
  } join_all{helpers};
  for (unsigned t = 1; t < threads && t < plan.size(); ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (auto& t : helpers) t.join();
  for (const auto& r : results)
    if (!r) return std::nullopt;
  // distributedInfo before traceEvents (first part) and again after it (last part):
  // the whole read names the duplicate.
  if (parts.front()->has_distributed_info && parts.back()->has_distributed_info) return std::nullopt;
  // The file's first launch decides the link key. A part whose own first launch
  // decided the other way (launches with and without a correlation in one file; not
  // seen in real traces) is read again with the file's key.
  std::optional<bool> decided;
  for (const auto& p : parts)
    if (!decided) decided = p->data.link_by_correlation;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!parts[i]->data.link_by_correlation || *parts[i]->data.link_by_correlation == *decided) continue;
    // As in the threads: a failure here makes the file be read whole.
    try {
      parts[i] = new_part(i);
      parts[i]->data.link_by_correlation = decided;
      simdjson::ondemand::parser parser;
      if (!read_into(*parts[i], parser, file, basic, limits, share, &plan[i], nullptr)) return std::nullopt;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  return merge_parts(parts, decided, threads);
}

}  // namespace

Result<TraceData> read_trace(const std::filesystem::path& file, BasicScanMode basic_mode, const TraceLimits& limits,
                             const TraceSplit& split) {
  const bool basic = basic_mode == BasicScanMode::kInclude;
  // The basic scan's sums depend on the order of their terms: only the GPU timeline
  // read is split, so both give the numbers of a whole read, bit for bit.
  if (!basic) {
    const std::vector<ScanPart> plan = plan_parts(file, split);
    if (!plan.empty())
      if (auto merged = read_parts(file, basic, limits, plan, split.threads)) return finish(*merged, file, split.threads);
  }
  PartState state(false);
  // A compressed file's size is its compressed one: less room than its records need,
  // never more.
  std::error_code ec;
  if (const uint64_t bytes = std::filesystem::file_size(file, ec); !ec)
    reserve_for(state.data, bytes, true, limits.max_state_bytes);
  simdjson::ondemand::parser parser;
  if (Status s = read_into(state, parser, file, basic, limits, limits.max_state_bytes, nullptr, nullptr); !s)
    return s.error();
  return finish(state, file, 1);
}

}  // namespace aorta::trace
