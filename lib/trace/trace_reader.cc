#include "trace/trace_reader.h"

#include <cmath>
#include <string_view>

#include <simdjson.h>

#include "trace/event_scanner.h"

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
    return id;
  }

 private:
  std::unordered_map<std::string, int64_t> ids_;
};

// One event's fields; string views point into the parser and die with the document.
struct RawEvent {
  std::string_view ph, cat, name;
  bool has_pid = false, has_tid = false, has_ts = false, has_dur = false, has_id = false;
  int64_t pid = 0, tid = 0, id = 0;
  double ts = 0, dur = 0;
  int64_t correlation = kNoKey, external_id = kNoKey;
};

simdjson::error_code read_id(simdjson::ondemand::value value, int64_t& out, IdInterner& interner) {
  json_type type;
  if (auto e = value.type().get(type)) return e;
  if (type == json_type::string) {
    std::string_view s;
    if (auto e = value.get_string().get(s)) return e;
    out = interner.intern(s);
    return simdjson::SUCCESS;
  }
  if (type == json_type::number) {
    double d;
    int64_t i;
    if (value.get_int64().get(i) == simdjson::SUCCESS) {
      out = i;
      return simdjson::SUCCESS;
    }
    if (auto e = value.get_double().get(d)) return e;
    out = static_cast<int64_t>(d);
    return simdjson::SUCCESS;
  }
  return simdjson::INCORRECT_TYPE;
}

simdjson::error_code read_args(simdjson::ondemand::value value, RawEvent& ev) {
  simdjson::ondemand::object args;
  if (value.get_object().get(args) != simdjson::SUCCESS) return simdjson::SUCCESS;  // non-object args: ignore
  for (auto field : args) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return e;
    if (key == "correlation" || key == "External id") {
      int64_t v;
      if (field.value().get_int64().get(v) != simdjson::SUCCESS) continue;
      (key == "correlation" ? ev.correlation : ev.external_id) = v;
    }
  }
  return simdjson::SUCCESS;
}

simdjson::error_code parse_event(simdjson::ondemand::parser& parser, const char* data, size_t size,
                                 size_t readable, RawEvent& ev, IdInterner& interner) {
  simdjson::ondemand::document doc;
  if (auto e = parser.iterate(data, size, readable).get(doc)) return e;
  simdjson::ondemand::object obj;
  if (auto e = doc.get_object().get(obj)) return e;
  for (auto field : obj) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return e;
    simdjson::ondemand::value value;
    if (auto e = field.value().get(value)) return e;
    if (key == "ph") {
      if (auto e = value.get_string().get(ev.ph)) return e;
    } else if (key == "cat") {
      if (auto e = value.get_string().get(ev.cat)) return e;
    } else if (key == "name") {
      if (value.get_string().get(ev.name) != simdjson::SUCCESS) ev.name = {};
    } else if (key == "pid") {
      if (auto e = read_id(value, ev.pid, interner)) return e;
      ev.has_pid = true;
    } else if (key == "tid") {
      if (auto e = read_id(value, ev.tid, interner)) return e;
      ev.has_tid = true;
    } else if (key == "ts") {
      if (auto e = value.get_double().get(ev.ts)) return e;
      ev.has_ts = true;
    } else if (key == "dur") {
      if (auto e = value.get_double().get(ev.dur)) return e;
      ev.has_dur = true;
    } else if (key == "id") {
      if (read_id(value, ev.id, interner) == simdjson::SUCCESS) ev.has_id = true;
    } else if (key == "args") {
      if (auto e = read_args(value, ev)) return e;
    }
  }
  return simdjson::SUCCESS;
}

void add_basic(BasicScan& basic, const RawEvent& ev) {
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
  switch (classify_basic(ev.cat, ev.name)) {
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

void add_event(TraceData& data, const RawEvent& ev) {
  Cat cat = classify_cat(ev.cat);
  if (cat == Cat::kFlow) {
    if (ev.has_id && ev.ph == "s") data.flow_starts.insert(ev.id);
    if (ev.has_id && ev.ph == "f") data.flow_ends[ev.id] = FlowEnd{ev.pid, ev.tid};
    return;
  }
  int32_t gpu_index = -1;
  if ((cat == Cat::kKernel || cat == Cat::kMemcpy || cat == Cat::kMemset) && ev.has_ts && ev.has_dur) {
    gpu_index = static_cast<int32_t>(data.gpu_events.size());
    data.gpu_events.push_back({ev.ts, ev.ts + ev.dur, classify_gpu_event(ev.cat, ev.name)});
  }
  if (cat == Cat::kRuntime) {
    data.runtime_launches.push_back({ev.correlation, ev.external_id,
                                     ev.name == "cudaGraphLaunch" || ev.name == "hipGraphLaunch"});
    if (!data.link_by_correlation && contains_lower(ev.name, "launch"))
      data.link_by_correlation = ev.correlation != kNoKey;
  }
  if (ev.has_pid && ev.has_tid && (ev.correlation != kNoKey || ev.external_id != kNoKey))
    data.keyed_events.push_back({ev.pid, ev.tid, ev.correlation, ev.external_id, gpu_index});
}

}  // namespace

Result<TraceData> read_trace(const std::filesystem::path& file) {
  TraceData data;
  simdjson::ondemand::parser parser;
  IdInterner interner;
  std::string distributed_info;
  ScanCallbacks callbacks;
  callbacks.on_metadata = [&](std::string_view key, std::string_view text) {
    if (key == "distributedInfo") distributed_info.assign(text);
  };
  callbacks.on_event = [&](const char* bytes, size_t size, size_t readable, uint64_t offset) -> Status {
    RawEvent ev;
    if (auto e = parse_event(parser, bytes, size, readable, ev, interner)) {
      std::string snippet(bytes, std::min<size_t>(size, 80));
      return Error{ErrorCode::kInvalidInput,
                   "event at byte " + std::to_string(offset) + " is not valid JSON (" + simdjson::error_message(e) +
                       "): " + snippet,
                   ""};
    }
    if (ev.has_dur && (ev.dur < 0 || !std::isfinite(ev.dur))) {
      ++data.negative_durations;
      return ok_status();
    }
    add_basic(data.basic, ev);
    add_event(data, ev);
    return ok_status();
  };
  auto scanned = scan_trace(file, callbacks, {"distributedInfo"});
  if (!scanned) return scanned.error();
  data.bytes = scanned->bytes;
  data.events = scanned->events;
  data.legacy_array = scanned->legacy_array;
  if (!distributed_info.empty()) {
    simdjson::padded_string padded(distributed_info);
    simdjson::ondemand::document doc;
    int64_t value;
    if (parser.iterate(padded).get(doc) == simdjson::SUCCESS && doc["rank"].get_int64().get(value) == simdjson::SUCCESS)
      data.rank = static_cast<int>(value);
    if (parser.iterate(padded).get(doc) == simdjson::SUCCESS &&
        doc["world_size"].get_int64().get(value) == simdjson::SUCCESS)
      data.world_size = static_cast<int>(value);
  }
  return data;
}

}  // namespace aorta::trace
