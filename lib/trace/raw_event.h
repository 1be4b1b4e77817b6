// One traceEvents element's fields as the trace reader reads them (RawEvent), and
// the parse of a batch of events into them. Internal to the reader (trace_reader.h);
// the per-event decode is its hot path, kept in one file so that it inlines.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <simdjson.h>

#include "common/result.h"
#include "trace/event_scanner.h"
#include "trace/trace_reader.h"

namespace aorta::trace::reader {

enum class Cat { kKernel, kMemcpy, kMemset, kRuntime, kFlow, kOther };

inline Cat classify_cat(std::string_view cat) {
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
  // A collective kernel's args (CollectiveKey); has_collective when any is present.
  bool has_collective = false;
  std::string_view collective_name, dtype;
  int64_t in_nelems = -1, out_nelems = -1, group_size = -1;
  int64_t device = -1;  // args.device of a GPU event, else -1
};

// Whether the gpu_timeline can use an event of this category at all.
inline bool timeline_category(std::string_view cat) { return classify_cat(cat) != Cat::kOther; }

struct PartState;

// Parses the batch's events (all at once as one JSON array; one by one where that
// fails, to name the event that is not valid JSON) and hands each to consume_event.
Status parse_events(PartState& state, simdjson::ondemand::parser& parser, const EventBatch& batch, bool basic);

}  // namespace aorta::trace::reader
