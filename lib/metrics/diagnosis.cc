#include "metrics/diagnosis.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <tuple>

#include "trace/sort_runs.h"

namespace aorta::metrics {
namespace {

using trace::CollectiveKey;
using trace::KernelKind;

const char* kind_name(KernelKind kind) {
  switch (kind) {
    case KernelKind::kGemm: return "gemm";
    case KernelKind::kAttention: return "attention";
    case KernelKind::kOtherCompute: return "other_compute";
    case KernelKind::kCollective: return "collective";
    case KernelKind::kMemcpy: return "memcpy";
    case KernelKind::kMemset: return "memset";
  }
  return "other_compute";
}

// Why a collective kernel has no bandwidth, or empty when it has one.
std::string missing_reason(const CollectiveKey& k) {
  if (k.name.empty()) return "no Collective name";
  if (k.dtype.empty()) return "no dtype";
  if (k.in_nelems < 0 && k.out_nelems < 0) return "no In or Out msg nelems";
  if (k.group_size < 1) return "no Group size";
  if (!dtype_bytes(k.dtype)) return "dtype " + k.dtype + " has no known size";
  return "";
}

struct Sum {
  uint64_t kernels = 0;
  double time_us = 0;
  void add(double t) {
    ++kernels;
    time_us += t;
  }
};

}  // namespace

std::optional<int> dtype_bytes(std::string_view dtype) {
  static const std::map<std::string_view, int> kBytes{
      {"Bool", 1},         {"Byte", 1},           {"Char", 1},          {"QInt8", 1},
      {"QUInt8", 1},       {"Float8_e5m2", 1},    {"Float8_e4m3fn", 1}, {"Float8_e5m2fnuz", 1},
      {"Float8_e4m3fnuz", 1}, {"Short", 2},       {"UInt16", 2},        {"Half", 2},
      {"BFloat16", 2},     {"Int", 4},            {"UInt32", 4},        {"QInt32", 4},
      {"Float", 4},        {"ComplexHalf", 4},    {"Long", 8},          {"UInt64", 8},
      {"Double", 8},       {"ComplexFloat", 8},   {"ComplexDouble", 16}};
  auto it = kBytes.find(dtype);
  if (it == kBytes.end()) return std::nullopt;
  return it->second;
}

bool is_collective_type(std::string_view collective, std::string_view type) {
  auto has = [&](std::string_view s) { return collective.find(s) != std::string_view::npos; };
  if (type == "allreduce") return has("allreduce") || has("all_reduce");
  if (type == "allgather") return has("allgather") || has("all_gather");
  return has(type);
}

std::optional<double> busbw_factor(std::string_view collective, int64_t n) {
  if (n < 1) return std::nullopt;
  auto is = [&](std::string_view type) { return is_collective_type(collective, type); };
  const double ranks = static_cast<double>(n);
  if (is("allreduce")) return 2 * (ranks - 1) / ranks;
  if (is("allgather") || is("reduce_scatter") || is("alltoall") || is("all_to_all")) return (ranks - 1) / ranks;
  for (std::string_view one : {"broadcast", "reduce", "send", "recv"})
    if (collective == one) return 1.0;
  return std::nullopt;
}

IdleBreakdown idle_breakdown(const trace::TraceData& data, const std::vector<uint32_t>& indices,
                             const trace::LaunchTimes& launches) {
  IdleBreakdown idle;
  std::vector<uint32_t> order(indices);
  trace::stable_sort_runs(order, [&](uint32_t a, uint32_t b) { return data.gpu_events[a].ts < data.gpu_events[b].ts; });
  double busy_end = 0;
  for (size_t k = 0; k < order.size(); ++k) {
    const trace::GpuEvent& e = data.gpu_events[order[k]];
    if (k > 0 && e.ts > busy_end) {
      const double gap = e.ts - busy_end;
      ++idle.gaps;
      const std::optional<double> launched = launches.of(e.correlation);
      if (launched && *launched > busy_end) {
        idle.host_wait_us += gap;
        ++idle.host_wait_gaps;
      } else if (gap < kConsecutiveKernelDelayUs) {
        idle.kernel_wait_us += gap;
      } else {
        idle.other_us += gap;
      }
    }
    busy_end = k == 0 ? e.end : std::max(busy_end, e.end);
  }
  return idle;
}

RankDiagnosis diagnose(const trace::TraceData& data, const std::vector<uint32_t>& indices, double window_us,
                       const trace::LaunchTimes& launches) {
  std::array<Sum, 6> by_kind;
  std::map<std::string, Sum> by_collective;   // collective kernels by Collective name
  // Only the shapes these events have: a step's few, not the trace's up to 4096 each time.
  std::map<uint32_t, Sum> by_key;
  std::map<std::string, Sum> missing;
  for (uint32_t i : indices) {
    const trace::GpuEvent& e = data.gpu_events[i];
    const double t = e.end - e.ts;
    if (e.kind != KernelKind::kCollective) {
      by_kind[static_cast<size_t>(e.kind)].add(t);
      continue;
    }
    if (e.collective == trace::kNoCollective || e.collective == trace::kCollectivePastLimit) {
      by_collective["unknown"].add(t);
      missing[e.collective == trace::kNoCollective
                  ? "no Collective name"
                  : "past the " + std::to_string(trace::kMaxCollectiveKeys) + " distinct collective shapes kept"]
          .add(t);
      continue;
    }
    const CollectiveKey& key = data.collectives[e.collective];
    by_collective[key.name.empty() ? "unknown" : key.name].add(t);
    if (std::string why = missing_reason(key); !why.empty())
      missing[why].add(t);
    else
      by_key[e.collective].add(t);
  }
  RankDiagnosis d;
  d.window_us = window_us;
  d.idle = idle_breakdown(data, indices, launches);
  auto add_class = [&](std::string name, const Sum& s) {
    if (s.kernels == 0) return;
    d.classes.push_back({std::move(name), s.kernels, s.time_us, window_us > 0 ? s.time_us / window_us : 0});
  };
  for (KernelKind k : {KernelKind::kGemm, KernelKind::kAttention, KernelKind::kOtherCompute})
    add_class(kind_name(k), by_kind[static_cast<size_t>(k)]);
  for (const auto& [name, s] : by_collective) add_class("collective:" + name, s);
  for (KernelKind k : {KernelKind::kMemcpy, KernelKind::kMemset}) add_class(kind_name(k), by_kind[static_cast<size_t>(k)]);
  for (const auto& [k, s] : by_key) {
    const CollectiveKey& key = data.collectives[k];
    const auto bytes = static_cast<uint64_t>(std::max(key.in_nelems, key.out_nelems)) *
                       static_cast<uint64_t>(*dtype_bytes(key.dtype));
    CollectiveBandwidth b{key.name, key.dtype, key.group_size, bytes, s.kernels, s.time_us, 0, std::nullopt};
    // bytes per microsecond is 1e6 bytes per second: / 1e3 gives GB/s.
    if (s.time_us > 0) b.algbw_gbps = static_cast<double>(bytes) * static_cast<double>(s.kernels) / s.time_us / 1e3;
    if (!std::isfinite(b.algbw_gbps)) {  // a hostile trace's tiny durations: no inf in a report
      Sum& m = missing["time too short for a finite bandwidth"];
      m.kernels += s.kernels;
      m.time_us += s.time_us;
      continue;
    }
    if (auto f = busbw_factor(key.name, key.group_size)) b.busbw_gbps = b.algbw_gbps * *f;
    d.collectives.push_back(std::move(b));
  }
  std::sort(d.collectives.begin(), d.collectives.end(), [](const auto& a, const auto& b) {
    return std::tie(a.collective, a.bytes, a.dtype, a.group_size) < std::tie(b.collective, b.bytes, b.dtype, b.group_size);
  });
  for (const auto& [why, s] : missing) d.missing.push_back({why, s.kernels, s.time_us});
  return d;
}

}  // namespace aorta::metrics
