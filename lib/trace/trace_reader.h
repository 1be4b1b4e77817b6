// Turns one profiler trace file into the compact records the metrics need: GPU
// events with their link keys, runtime launches, ac2g flows, and the running sums of
// the basic scan. It computes no metrics itself (that is timeline.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "trace/huge_page_allocator.h"
#include "trace/kernel_class.h"
#include "trace/trace_limits.h"

namespace aorta::trace {

constexpr int64_t kNoKey = INT64_MIN;

constexpr uint32_t kNoCollective = UINT32_MAX;  // a GPU event without collective metadata
constexpr uint32_t kCollectivePastLimit = UINT32_MAX - 1;  // with metadata, past kMaxCollectiveKeys

struct GpuEvent {
  double ts = 0;
  double end = 0;  // ts + dur in double, the only rounding step (reference B.5)
  GpuClass cls = GpuClass::kComputation;
  KernelKind kind = KernelKind::kOtherCompute;  // the diagnosis's class (fills padding: no memory)
  uint32_t collective = kNoCollective;          // index into TraceData::collectives
  // args.correlation: the runtime launch it came from, whose CPU time places it in a
  // profiler step (step_metrics.h).
  int64_t correlation = kNoKey;
};
static_assert(sizeof(GpuEvent) == 32, "the diagnosis's fields live in padding: a 1 GB trace holds millions");

// An event with a pid, tid and a link key in its args: the candidates of the
// (pid, tid, key) -> event map that links flows to kernels. `key` is the correlation
// or the External id, as link_by_correlation decides. Compact on purpose: a 1 GB
// trace holds millions of these. `thread` numbers the (pid, tid) pair by value among
// the pairs of keyed events and flow ends (a split read numbers them as a whole read).
struct KeyedEvent {
  uint32_t thread = 0;
  int32_t gpu_index = -1;  // index into gpu_events, -1 for non-GPU events
  int64_t key = kNoKey;
};

struct RuntimeLaunch {
  int64_t correlation = kNoKey;
  int64_t external_id = kNoKey;
  double ts = 0;              // CPU time of the call
  bool graph_launch = false;  // cudaGraphLaunch / hipGraphLaunch link every kernel of the graph
};

// PyTorch's step marker: a complete ("X") CPU event named ProfilerStep#N, which the
// profiler's step() writes around each training iteration. GPU-side copies of it
// (cat gpu_user_annotation) are not steps.
struct StepAnnotation {
  int64_t number = 0;  // N
  double ts = 0;
  double dur = 0;
};

// The annotations left out of TraceData::steps, and the first of each kind, for the
// warnings (step_metrics.h). An exact copy of a kept one (number, ts and dur) would
// count its step twice; one inside a kept one's span would take the rest of that
// step's launches (a launch belongs to the last step started before it) and count
// its time twice, so the outer step keeps all of it. Steps that only overlap (one
// starts before the last one ends, and ends after it) are both kept.
struct DroppedSteps {
  uint64_t duplicates = 0;
  uint64_t nested = 0;
  StepAnnotation first_duplicate;
  StepAnnotation first_nested, first_nested_in;  // the first nested one, and the step it lies in
};

// A CPU event of the CPU timeline (cpu_timeline.h). Recorded only by the read with
// the basic scan, and only while the trace has shown no GPU event: the first one
// drops them all, as a GPU trace has its GPU timeline.
struct CpuEvent {
  double ts = 0;
  double end = 0;
  uint32_t thread = 0;  // interned (pid, tid)
  CpuClass cls = CpuClass::kOperator;
};

struct FlowEnd {
  int64_t id = 0;
  uint32_t thread = 0;    // (pid, tid) of the "f" event, numbered as KeyedEvent::thread
  bool interned = false;  // while a part of a split file is read: id is a string's part-local number
};

// What PyTorch's profiler copies from record_param_comms into a collective's GPU
// kernel args: "Collective name", "dtype", "In msg nelems", "Out msg nelems",
// "Group size". A field the kernel lacks stays empty or -1.
struct CollectiveKey {
  std::string name, dtype;
  int64_t in_nelems = -1, out_nelems = -1, group_size = -1;
  bool operator==(const CollectiveKey&) const = default;
};
// Distinct keys kept per trace; a kernel past them gets kCollectivePastLimit and counts
// in TraceData::collectives_over_limit (memory stays bounded on a hostile trace).
constexpr size_t kMaxCollectiveKeys = 4096;

// The original's raw scan (reference §3.5), summed while reading.
struct BasicScan {
  double total = 0;
  double compute = 0;
  double comm = 0;
  double memory = 0;
  uint64_t compute_kernels = 0;
  uint64_t comm_kernels = 0;
  double min_ts = 0;
  double max_end = 0;
  bool has_ts = false;
};

struct TraceData {
  bool has_basic_scan = true;  // false when read with BasicScanMode::kSkip
  std::optional<int> rank;        // distributedInfo.rank
  std::optional<int> world_size;  // distributedInfo.world_size
  bool legacy_array = false;
  uint64_t bytes = 0;
  uint64_t events = 0;
  uint64_t negative_durations = 0;  // events skipped because dur < 0
  LargeVector<GpuEvent> gpu_events;
  LargeVector<KeyedEvent> keyed_events;  // by (thread, key), file order within (select_gpu_events' lookup)
  LargeVector<RuntimeLaunch> runtime_launches;  // cuda_runtime / cuda_driver events, file order
  // By start (the longer first on a tie, then file order), one per step: finish
  // drops the annotations below. A handful to thousands per trace.
  std::vector<StepAnnotation> steps;
  DroppedSteps dropped_steps;
  // The largest args."Total Allocated" (bytes) of any event: Kineto's [memory] events
  // with profile_memory=True; unset without them.
  std::optional<double> peak_allocated_bytes;
  // args.device of the GPU events: the GPU's index on its node; unset when none says,
  // or when two events name different devices (mixed: no one index).
  std::optional<int> gpu_device;
  bool gpu_devices_mixed = false;
  LargeVector<CpuEvent> cpu_events;             // file order; empty unless read with the basic scan
  // The first runtime event whose name contains "launch" decides the link key; a
  // trace without one links by External id (TraceLens's default) and leaves this empty.
  std::optional<bool> link_by_correlation;
  // Sorted vectors rather than hash maps: a fraction of the memory at 1 GB scale.
  LargeVector<int64_t> flow_starts;  // ids of "s" flow events, sorted and unique
  LargeVector<FlowEnd> flow_ends;    // the last "f" per id (TraceLens: last wins), sorted by id
  BasicScan basic;
  std::vector<CollectiveKey> collectives;  // distinct keys, first seen first
  uint64_t collectives_over_limit = 0;      // kernels with metadata past kMaxCollectiveKeys
  unsigned parts = 1;  // how many parts the file was read in (TraceSplit)
};

enum class BasicScanMode {
  kInclude,  // sum the basic scan too (every event's name, ts and dur are decoded), and
             // record the CPU events of a trace without GPU events (cpu_events)
  kSkip,     // GPU timeline data only: events outside it skip name, ts and dur
};

// Reading one large plain file on several threads: it is split at traceEvents
// elements into one equal part per thread (each at least min_part_bytes), the parts
// read at once and merged in file order under the rules of a whole read (the last
// event of a (pid, tid, key) wins, the first launch of the file decides the link key),
// so the records and every metric are those of a whole read. Compressed files and the
// basic scan are read whole. A part that fails (damaged JSON, a split point guessed
// wrong) makes the file read again whole, which reports what a whole read reports.
// More parts than threads, taken as threads finish, were measured slower (each part
// pays again for its buffers' first pages).
struct TraceSplit {
  unsigned threads = 1;
  uint64_t min_part_bytes = uint64_t{8} << 20;
};

// Errors name the file: damaged or non-conforming JSON (event_scanner.h), a budget
// in `limits` exceeded, distributedInfo.rank or world_size out of range.
Result<TraceData> read_trace(const std::filesystem::path& file, BasicScanMode basic = BasicScanMode::kInclude,
                             const TraceLimits& limits = {}, const TraceSplit& split = {});


}  // namespace aorta::trace
