// The kernel and event classes: TraceLens's GPU rules and the basic scan's.
#include "trace/kernel_class.h"

#include <gtest/gtest.h>

namespace aorta::trace {
namespace {

TEST(KernelClass, TraceLensRules) {
  EXPECT_EQ(classify_gpu_event("gpu_memcpy", "Memcpy HtoD"), GpuClass::kMemcpy);
  EXPECT_EQ(classify_gpu_event("kernel", "__amd_rocclr_copyBufferRectAligned.kd"), GpuClass::kMemcpy);
  EXPECT_EQ(classify_gpu_event("kernel", "MEMORY_COPY_DEVICE_TO_HOST"), GpuClass::kMemcpy);
  EXPECT_EQ(classify_gpu_event("kernel", "MEMORY_COPY_SIDEWAYS"), GpuClass::kComputation);
  EXPECT_EQ(classify_gpu_event("kernel", "__amd_rocclr_fillBufferAligned.kd"), GpuClass::kComputation);
  EXPECT_EQ(classify_gpu_event("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL"), GpuClass::kCommunication);
  EXPECT_EQ(classify_gpu_event("kernel", "rcclGenericKernel"), GpuClass::kCommunication);
  EXPECT_EQ(classify_gpu_event("kernel", "NCCLKERNEL"), GpuClass::kCommunication);
  EXPECT_EQ(classify_gpu_event("kernel", "void cross_device_reduce_1stage<float>"), GpuClass::kCommunication);
  EXPECT_EQ(classify_gpu_event("kernel", "mscclKernel_Sum"), GpuClass::kComputation);
  EXPECT_EQ(classify_gpu_event("gpu_memset", "Memset (Device)"), GpuClass::kComputation);
  EXPECT_EQ(classify_gpu_event("kernel", "Cijk_Alik_Bljk_HHS_BH"), GpuClass::kComputation);
}

TEST(KernelClass, DiagnosisKinds) {
  EXPECT_EQ(classify_kernel_kind("kernel", "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT"), KernelKind::kGemm);
  EXPECT_EQ(classify_kernel_kind("kernel", "Cijk_Alik_Bljk_HHS_BH"), KernelKind::kGemm);
  EXPECT_EQ(classify_kernel_kind("kernel", "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm>"), KernelKind::kGemm);
  // Flash attention is written with CUTLASS: attention wins.
  EXPECT_EQ(classify_kernel_kind("kernel", "void flash::flash_fwd_kernel<cutlass::half_t>"), KernelKind::kAttention);
  EXPECT_EQ(classify_kernel_kind("kernel", "cudnn_generated_fort_native_sdpa_sm90_flash_bprop"), KernelKind::kAttention);
  EXPECT_EQ(classify_kernel_kind("kernel", "void at::native::vectorized_elementwise_kernel<8>"),
            KernelKind::kOtherCompute);
  EXPECT_EQ(classify_kernel_kind("kernel", "ncclDevKernel_AllGather_RING_LL"), KernelKind::kCollective);
  EXPECT_EQ(classify_kernel_kind("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)"), KernelKind::kMemcpy);
  EXPECT_EQ(classify_kernel_kind("gpu_memset", "Memset (Device)"), KernelKind::kMemset);
  EXPECT_EQ(classify_kernel_kind("kernel", "__amd_rocclr_fillBufferAligned.kd"), KernelKind::kMemset);
}

TEST(KernelClass, BasicScanRules) {
  EXPECT_EQ(classify_basic("", "c10d::allreduce_"), BasicClass::kCommunication);
  EXPECT_EQ(classify_basic("cpu_op", "nccl:all_reduce"), BasicClass::kCommunication);
  EXPECT_EQ(classify_basic("", "gloo:all_reduce"), BasicClass::kOther);  // no rule names it
  EXPECT_EQ(classify_basic("gpu_memcpy", "Memcpy DtoD"), BasicClass::kMemory);
  EXPECT_EQ(classify_basic("kernel", "Cijk"), BasicClass::kComputeKernel);
  EXPECT_EQ(classify_basic("GPU", "x"), BasicClass::kComputeGpu);
}

}  // namespace
}  // namespace aorta::trace
