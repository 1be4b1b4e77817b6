// The character classes of one 64-byte block that the trace scanner needs, computed
// with AVX-512BW where the CPU has it, else SSE2 (every x86-64 CPU), chosen once at
// start-up: the project is built for baseline x86-64, so wide code is opt-in. AVX2
// was measured no faster than SSE2 here and is left out.
#pragma once

#include <cstdint>
#include <vector>

namespace aorta::trace {

struct BlockMasks {
  uint64_t quotes = 0;       // bit i set: byte i is '"'
  uint64_t backslashes = 0;  // '\\'
  uint64_t brackets = 0;     // '{', '}', '[' or ']'
  uint64_t quote_parity = 0; // bit i: odd number of quotes in bytes 0..i (prefix XOR)
};

// Reads 64 bytes at `block`, which must all be readable.
using BlockMasksFn = BlockMasks (*)(const char* block);

struct BlockMasksImpl {
  BlockMasksFn fn;
  const char* isa;  // "avx512bw", "sse2" or "scalar"
};

// The fastest implementation this CPU runs, or the one the environment variable
// AORTA_TRACE_SIMD names ("sse2", "scalar") when this CPU runs it.
BlockMasksImpl block_masks_for_this_cpu();
// Every implementation this CPU runs, fastest first (for tests and benchmarks).
std::vector<BlockMasksImpl> block_masks_all();

}  // namespace aorta::trace
