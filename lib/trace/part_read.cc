#include "trace/part_read.h"

#include <sys/resource.h>

#include <algorithm>
#include <exception>
#include <string>

namespace aorta::trace::reader {
namespace {

// The file refused by name: its records need more than the budget (a part of a
// split file has its share of it).
Error over_budget(const PartState& state, const TraceLimits& limits, const std::filesystem::path& file) {
  const TraceData& data = state.data;
  auto count = [](size_t n, const char* what) { return n == 0 ? std::string() : " and " + std::to_string(n) + what; };
  return Error{ErrorCode::kInvalidInput,
               "the trace needs more event state than the memory budget allows (" +
                   std::to_string(limits.max_state_bytes >> 20) + " MiB of " + std::to_string(limits.total_bytes >> 20) +
                   " MiB, reached after " + std::to_string(data.gpu_events.size()) + " GPU events and " +
                   std::to_string(data.keyed_events.size() + state.undecided.size()) + " keyed events" +
                   count(data.cpu_events.size(), " CPU events") + count(data.steps.size(), " ProfilerStep annotations") +
                   "; AORTA_TRACE_MEMORY_LIMIT raises it)",
               file.string()};
}

}  // namespace

Status read_into(PartState& state, simdjson::ondemand::parser& parser, const std::filesystem::path& file, bool basic,
                 const TraceLimits& limits, uint64_t max_state_bytes, const ScanPart* scan_part,
                 const std::atomic<bool>* stop) {
  TraceData& data = state.data;
  data.has_basic_scan = basic;
  ScanCallbacks callbacks;
  callbacks.on_metadata = [&](std::string_view key, std::string_view text) {
    if (key == "distributedInfo") {
      state.distributed_info.assign(text);
      state.has_distributed_info = true;
    }
  };
  // Everything that grows with the events is checked once per batch (a read chunk
  // adds at most a few MiB): beyond the budget the file is refused by name.
  callbacks.on_events = [&](const EventBatch& batch) -> Status {
    if (stop && stop->load(std::memory_order_relaxed))
      return Error{ErrorCode::kInvalidInput, "stopped: another part of the file failed", file.string()};
    const Status processed = parse_events(state, parser, batch, basic);
    if (!processed) return processed;
    if (state_bytes(state) <= max_state_bytes) return ok_status();
    return over_budget(state, limits, file);
  };
  auto scanned = scan_part ? scan_trace_part(file, callbacks, {"distributedInfo"}, limits.max_token_bytes, *scan_part)
                           : scan_trace(file, callbacks, {"distributedInfo"}, limits.max_token_bytes);
  if (!scanned) return scanned.error();
  data.bytes = scanned->bytes;
  data.events = scanned->events;
  data.legacy_array = scanned->legacy_array;
  return ok_status();
}

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

}  // namespace aorta::trace::reader
