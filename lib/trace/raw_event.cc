#include "trace/raw_event.h"

#include <cmath>

#include "common/utf8.h"
#include "trace/part_state.h"

namespace aorta::trace::reader {
namespace {

using simdjson::ondemand::json_type;

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
    // Past int64 (a uint64 above 2^63, 1e300) a cast is undefined (found by the fuzzer):
    // such an id is kept by its text, as a string id is.
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) {
      std::string_view raw = value.raw_json_token();
      while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
        raw.remove_suffix(1);
      out = interner.intern(raw);
      interned |= bit;
      return simdjson::SUCCESS;
    }
    out = static_cast<int64_t>(d);
    interned &= static_cast<uint8_t>(~bit);
    return simdjson::SUCCESS;
  }
  return simdjson::INCORRECT_TYPE;
}

// The collective metadata fields and the device (RawEvent); a value of the wrong type is left out.
void read_collective_arg(simdjson::ondemand::raw_json_string key, simdjson::ondemand::value value, RawEvent& ev) {
  int64_t* count = nullptr;
  std::string_view* text = nullptr;
  switch (key.raw()[0]) {  // one branch for the many args that are none of these
    case 'C': text = key.unsafe_is_equal("Collective name") ? &ev.collective_name : nullptr; break;
    case 'd':
      if (key.unsafe_is_equal("device")) {  // the GPU's index (not collective metadata)
        int64_t d;
        if (value.get_int64().get(d) == simdjson::SUCCESS && d >= 0 && d < (1 << 20)) ev.device = d;
        return;
      }
      text = key.unsafe_is_equal("dtype") ? &ev.dtype : nullptr;
      break;
    case 'I': count = key.unsafe_is_equal("In msg nelems") ? &ev.in_nelems : nullptr; break;
    case 'O': count = key.unsafe_is_equal("Out msg nelems") ? &ev.out_nelems : nullptr; break;
    case 'G': count = key.unsafe_is_equal("Group size") ? &ev.group_size : nullptr; break;
    default: return;
  }
  int64_t n;
  if (count && value.get_int64().get(n) == simdjson::SUCCESS && n >= 0) {
    *count = n;
    ev.has_collective = true;
  } else if (text && value.get_string().get(*text) == simdjson::SUCCESS) {
    ev.has_collective = true;
  }
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
    } else {
      read_collective_arg(key, field.value(), ev);
    }
  }
  return simdjson::SUCCESS;
}


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

// One event on its own: the slow path, used to name the event a batch failed on.
Status parse_one(PartState& state, simdjson::ondemand::parser& parser, const EventBatch& batch, const EventRef& ref,
                 bool basic) {
  RawEvent ev;
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  const char* bytes = batch.buffer + ref.start;
  auto e = parser.iterate(bytes, ref.size, batch.buffer_size - ref.start).get(doc);
  if (!e) e = doc.get_object().get(obj);
  if (!e) e = read_event(obj, ev, state.interner, basic);
  if (e)
    return Error{ErrorCode::kInvalidInput,
                 "event at byte " + std::to_string(ref.offset) + " is not valid JSON (" + simdjson::error_message(e) +
                     "): " + valid_utf8(utf8_prefix(std::string_view(bytes, ref.size), 80)),
                 ""};
  consume_event(state, ev, basic);
  return ok_status();
}

}  // namespace

Status parse_events(PartState& state, simdjson::ondemand::parser& parser, const EventBatch& batch, bool basic) {
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
      if ((failed = read_event(obj, ev, state.interner, basic))) break;
      consume_event(state, ev, basic);
      ++done;
    }
  }
  *open = saved_open;
  *close = saved_close;
  if (!failed && done == refs.size()) return ok_status();
  for (size_t i = done; i < refs.size(); ++i)
    if (Status st = parse_one(state, parser, batch, refs[i], basic); !st) return st;
  return ok_status();
}

}  // namespace aorta::trace::reader
