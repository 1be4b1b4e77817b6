// Name and category rules that sort trace events into compute, communication and
// memory copies: TraceLens's current gpu_timeline rules and the original's basic scan.
#pragma once

#include <string_view>

namespace aorta::trace {

enum class GpuClass : unsigned char { kComputation, kCommunication, kMemcpy };

// TraceLens HEAD (reference B.4), for events of cat kernel, gpu_memcpy, gpu_memset.
GpuClass classify_gpu_event(std::string_view cat, std::string_view name);

enum class BasicClass : unsigned char { kCommunication, kMemory, kComputeKernel, kComputeGpu, kOther };

// The original's raw scan (reference §3.5), applied to every event with dur > 0.
BasicClass classify_basic(std::string_view cat, std::string_view name);

// Events of the CPU timeline (cpu_timeline.h), the timeline of traces without GPU
// events. Only complete ("X") events of cat cpu_op or user_annotation (Kineto) or
// without a cat (torch 1.13's legacy writer) take part:
//   kStep           ProfilerStep#N, the step marker (not an operator)
//   kCommunication  a collective: name starting c10d::, gloo:, nccl:, mpi: or ucc:, or
//                   record_param_comms (PyTorch's wrapper around every collective)
//   kOperator       every other one (aten ops, record_function annotations)
enum class CpuClass : unsigned char { kNone, kOperator, kCommunication, kStep };
CpuClass classify_cpu_event(std::string_view cat, std::string_view name);

// The diagnosis's kernel classes (metrics/diagnosis.h), for GPU events: TraceLens's
// communication and memcpy classes, memset (cat gpu_memset or a ROCm fill kernel), and
// compute split by name: attention (flash, fmha, attention, attn, sdpa; before GEMM, as
// flash kernels are built on CUTLASS), GEMM (gemm, nvjet, cutlass, cublas, xmma, and
// Tensile's Cijk_ on ROCm), other.
enum class KernelKind : unsigned char { kGemm, kAttention, kOtherCompute, kCollective, kMemcpy, kMemset };
KernelKind classify_kernel_kind(std::string_view cat, std::string_view name);

// Case-insensitive substring search; needle must be lower case.
bool contains_lower(std::string_view haystack, std::string_view lower_needle);

}  // namespace aorta::trace
