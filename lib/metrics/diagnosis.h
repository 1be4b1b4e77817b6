// Where one rank's GPU time goes (kernel classes) and the bandwidth its collectives
// reach (nccl-tests' algbw and busbw), over the events of its GPU timeline.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/launch_times.h"
#include "trace/trace_reader.h"

namespace aorta::metrics {

// Summed kernel durations of one class (overlapping kernels count twice), and their
// share of the rank's window (the timeline's total_time).
struct KernelClassTime {
  std::string name;  // gemm, attention, other_compute, collective:<Collective name>, memcpy, memset
  uint64_t kernels = 0;
  double time_us = 0;
  double share = 0;
  bool operator==(const KernelClassTime&) const = default;
};

// One collective type and message size: nccl-tests' definitions, S the larger of In and
// Out msg nelems times the dtype's size (its full buffer: all-gather's output,
// reduce-scatter's input), algbw = S / t per call, busbw = algbw times the type's factor.
struct CollectiveBandwidth {
  std::string collective;  // "Collective name"
  std::string dtype;
  int64_t group_size = 0;
  uint64_t bytes = 0;  // S
  uint64_t count = 0;
  double time_us = 0;
  double algbw_gbps = 0;             // count * S / time, GB = 1e9 bytes
  std::optional<double> busbw_gbps;  // unset: no nccl-tests factor for this type (barrier, gather)
  bool operator==(const CollectiveBandwidth&) const = default;
};

// Collective kernels left out of the bandwidths, by why (never guessed).
struct MissingMetadata {
  std::string reason;  // e.g. "no dtype", "dtype Foo has no known size"
  uint64_t kernels = 0;
  double time_us = 0;
  bool operator==(const MissingMetadata&) const = default;
};

// HTA's idle-time breakdown, over the whole GPU (every stream together: the GPU is
// idle when none of its selected kernels runs). Each gap between busy spans belongs to
// the kernel that ends it (the first to start, then the first in file order): host
// wait when that kernel's runtime launch came after the gap began (the CPU had not yet
// enqueued it), else kernel wait when the gap is shorter than HTA's
// consecutive_kernel_delay (30 ns), else other (stream or event waits, dependencies).
// The three add up to the timeline's idle time.
inline constexpr double kConsecutiveKernelDelayUs = 0.030;
struct IdleBreakdown {
  double host_wait_us = 0;
  double kernel_wait_us = 0;
  double other_us = 0;
  uint64_t host_wait_gaps = 0;
  uint64_t gaps = 0;
  bool operator==(const IdleBreakdown&) const = default;
};

struct RankDiagnosis {
  double window_us = 0;
  std::vector<KernelClassTime> classes;  // the order of `name` above, collectives by name
  std::vector<CollectiveBandwidth> collectives;  // by collective, then bytes
  std::vector<MissingMetadata> missing;
  IdleBreakdown idle;
  bool operator==(const RankDiagnosis&) const = default;
};

// Bytes of one element of a PyTorch dtype as record_param_comms writes it (Float, BFloat16...).
std::optional<int> dtype_bytes(std::string_view dtype);
// Whether a "Collective name" is of `type` (allreduce also all_reduce, allgather also all_gather).
bool is_collective_type(std::string_view collective, std::string_view type);
// nccl-tests' bus bandwidth factor for a PyTorch collective name and group size n:
// all-reduce 2(n-1)/n; all-gather, reduce-scatter, all-to-all (n-1)/n; broadcast,
// reduce, send, recv 1.
std::optional<double> busbw_factor(std::string_view collective, int64_t n);

// Over gpu_events[i] for i in `indices` (the timeline's selected events, or one step's).
RankDiagnosis diagnose(const trace::TraceData& data, const std::vector<uint32_t>& indices, double window_us,
                       const trace::LaunchTimes& launches);
IdleBreakdown idle_breakdown(const trace::TraceData& data, const std::vector<uint32_t>& indices,
                             const trace::LaunchTimes& launches);

}  // namespace aorta::metrics
