#include "trace/finish_read.h"

#include <algorithm>
#include <string>
#include <vector>

#include <simdjson.h>

#include "common/run_both.h"
#include "trace/sort_runs.h"

namespace aorta::trace::reader {
namespace {

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

}  // namespace

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

}  // namespace aorta::trace::reader
