#include "trace/kernel_class.h"

#include <initializer_list>

namespace aorta::trace {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool equals_lower(std::string_view a, std::string_view lower_b) {
  if (a.size() != lower_b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower_b[i]) return false;
  return true;
}

bool strip_prefix(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

void strip_kd(std::string_view& s) {
  if (s.size() >= 3 && s.substr(s.size() - 3) == ".kd") s.remove_suffix(3);
}

// ^(MEMORY_COPY_(HOST_TO_DEVICE|DEVICE_TO_HOST|DEVICE_TO_DEVICE)|__amd_rocclr_copyBuffer(Rect)?(Aligned)?)(\.kd)?$
bool is_rocm_copy_kernel(std::string_view name) {
  strip_kd(name);
  if (strip_prefix(name, "MEMORY_COPY_"))
    return name == "HOST_TO_DEVICE" || name == "DEVICE_TO_HOST" || name == "DEVICE_TO_DEVICE";
  if (!strip_prefix(name, "__amd_rocclr_copyBuffer")) return false;
  strip_prefix(name, "Rect");
  strip_prefix(name, "Aligned");
  return name.empty();
}

// ^__amd_rocclr_fillBuffer(Aligned)?(\.kd)?$
bool is_rocm_fill_kernel(std::string_view name) {
  strip_kd(name);
  if (!strip_prefix(name, "__amd_rocclr_fillBuffer")) return false;
  strip_prefix(name, "Aligned");
  return name.empty();
}

}  // namespace

bool contains_lower(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return true;
  if (haystack.size() < needle.size()) return false;
  const char first = needle[0];
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    if (lower(haystack[i]) != first) continue;
    size_t j = 1;
    while (j < needle.size() && lower(haystack[i + j]) == needle[j]) ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

GpuClass classify_gpu_event(std::string_view cat, std::string_view name) {
  if (cat == "gpu_memcpy") return GpuClass::kMemcpy;
  if (cat == "kernel") {
    if (is_rocm_copy_kernel(name)) return GpuClass::kMemcpy;
    if (is_rocm_fill_kernel(name)) return GpuClass::kComputation;
  }
  if (contains_lower(name, "nccl") || contains_lower(name, "rccl") || contains_lower(name, "cross_device_reduce"))
    return GpuClass::kCommunication;
  return GpuClass::kComputation;
}

KernelKind classify_kernel_kind(std::string_view cat, std::string_view name) {
  switch (classify_gpu_event(cat, name)) {
    case GpuClass::kCommunication: return KernelKind::kCollective;
    case GpuClass::kMemcpy: return KernelKind::kMemcpy;
    case GpuClass::kComputation: break;
  }
  if (cat == "gpu_memset" || (cat == "kernel" && is_rocm_fill_kernel(name))) return KernelKind::kMemset;
  auto any_of = [&](std::initializer_list<std::string_view> needles) {
    for (std::string_view n : needles)
      if (contains_lower(name, n)) return true;
    return false;
  };
  if (any_of({"flash", "fmha", "attention", "attn", "sdpa"})) return KernelKind::kAttention;
  if (any_of({"gemm", "nvjet", "cutlass", "cublas", "xmma", "cijk_"})) return KernelKind::kGemm;
  return KernelKind::kOtherCompute;
}

BasicClass classify_basic(std::string_view cat, std::string_view name) {
  for (std::string_view comm : {"nccl", "allreduce", "allgather", "broadcast", "reduce_scatter"})
    if (contains_lower(name, comm)) return BasicClass::kCommunication;
  for (std::string_view mem : {"memcpy", "memset"})  // "cudamemcpy" contains "memcpy"
    if (contains_lower(name, mem)) return BasicClass::kMemory;
  if (equals_lower(cat, "kernel") || contains_lower(name, "kernel")) return BasicClass::kComputeKernel;
  if (equals_lower(cat, "gpu")) return BasicClass::kComputeGpu;
  return BasicClass::kOther;
}

CpuClass classify_cpu_event(std::string_view cat, std::string_view name) {
  if (!cat.empty() && cat != "cpu_op" && cat != "user_annotation") return CpuClass::kNone;
  if (name.starts_with("ProfilerStep#")) return CpuClass::kStep;
  for (std::string_view prefix : {"c10d::", "gloo:", "nccl:", "mpi:", "ucc:"})
    if (name.starts_with(prefix)) return CpuClass::kCommunication;
  if (name == "record_param_comms") return CpuClass::kCommunication;
  return CpuClass::kOperator;
}

}  // namespace aorta::trace
