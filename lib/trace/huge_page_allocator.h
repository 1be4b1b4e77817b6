// An allocator for the trace reader's large arrays: blocks of 1 MiB and more are
// rounded up to whole 2 MiB pages, aligned to and advised as transparent huge pages.
// Filling a vector of millions of records otherwise takes a page fault per 4 KiB,
// which cost a quarter of the read time of a 1 GB trace on a virtual machine
// (bench/trace_bench); there a 4 KiB fault costs about 15 us, a 2 MiB one less than
// eight of them. Smaller blocks stay ordinary: a huge page is cleared whole at its
// first touch, so a 300 KiB block (one profiler step's intervals) would pay for 2 MiB
// (from 256 KiB up, step_metrics took 60 to 85 ms of a 1 GB trace's first analysis
// instead of 25).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

namespace aorta::trace {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr size_t kHugePage = size_t{2} << 20;
  static constexpr size_t kSmallest = kHugePage / 2;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kSmallest) return static_cast<T*>(::operator new(bytes));
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* block = std::aligned_alloc(kHugePage, rounded);
    if (!block) throw std::bad_alloc();
    ::madvise(block, rounded, MADV_HUGEPAGE);  // advice only: without THP it is ignored
    return static_cast<T*>(block);
  }
  void deallocate(T* block, size_t n) {
    if (n * sizeof(T) < kSmallest)
      ::operator delete(block);
    else
      std::free(block);
  }
  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }
};

template <class T>
using LargeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace aorta::trace
