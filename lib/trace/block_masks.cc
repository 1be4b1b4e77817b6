#include "trace/block_masks.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace aorta::trace {
namespace {

BlockMasks scalar_masks(const char* block) {
  BlockMasks m;
  uint64_t parity = 0;
  for (int i = 0; i < 64; ++i) {
    const uint64_t bit = uint64_t{1} << i;
    const char c = block[i];
    if (c == '"') {
      m.quotes |= bit;
      parity ^= 1;
    }
    if (c == '\\') m.backslashes |= bit;
    if (c == '{' || c == '}' || c == '[' || c == ']') m.brackets |= bit;
    m.quote_parity |= parity << i;
  }
  return m;
}

#if defined(__x86_64__)

uint64_t prefix_xor_shifts(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

// '{' '}' differ from '[' ']' only in bit 0x20: clearing it folds four compares into two.
constexpr char kNotCase = static_cast<char>(0xDF);

uint64_t sse2_mask(__m128i eq, int quarter) {
  return static_cast<uint64_t>(static_cast<uint32_t>(_mm_movemask_epi8(eq))) << (16 * quarter);
}

BlockMasks sse2_masks(const char* block) {
  BlockMasks m;
  for (int i = 0; i < 4; ++i) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(block + 16 * i));
    __m128i folded = _mm_and_si128(v, _mm_set1_epi8(kNotCase));
    m.quotes |= sse2_mask(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')), i);
    m.backslashes |= sse2_mask(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')), i);
    m.brackets |= sse2_mask(_mm_or_si128(_mm_cmpeq_epi8(folded, _mm_set1_epi8('[')),
                                         _mm_cmpeq_epi8(folded, _mm_set1_epi8(']'))),
                            i);
  }
  m.quote_parity = prefix_xor_shifts(m.quotes);
  return m;
}

// A carry-less multiply by all ones is the prefix XOR in one instruction.
__attribute__((target("pclmul"))) uint64_t prefix_xor_clmul(uint64_t x) {
  return static_cast<uint64_t>(
      _mm_cvtsi128_si64(_mm_clmulepi64_si128(_mm_set_epi64x(0, static_cast<long long>(x)), _mm_set1_epi8(-1), 0)));
}

__attribute__((target("avx512f,avx512bw,pclmul"))) BlockMasks avx512_masks(const char* block) {
  BlockMasks m;
  __m512i v = _mm512_loadu_si512(block);
  __m512i folded = _mm512_and_si512(v, _mm512_set1_epi8(kNotCase));
  m.quotes = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
  m.backslashes = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
  m.brackets = _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('[')) | _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8(']'));
  m.quote_parity = prefix_xor_clmul(m.quotes);
  return m;
}

#endif

}  // namespace

std::vector<BlockMasksImpl> block_masks_all() {
  std::vector<BlockMasksImpl> all;
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("pclmul")) all.push_back({avx512_masks, "avx512bw"});
  all.push_back({sse2_masks, "sse2"});
#endif
  all.push_back({scalar_masks, "scalar"});
  return all;
}

BlockMasksImpl block_masks_for_this_cpu() {
  static const BlockMasksImpl chosen = [] {
    auto all = block_masks_all();
    // AORTA_TRACE_SIMD names a narrower unit, to measure what an older CPU would do.
    if (const char* wanted = std::getenv("AORTA_TRACE_SIMD"))
      for (const auto& impl : all)
        if (std::strcmp(impl.isa, wanted) == 0) return impl;
    return all.front();
  }();
  return chosen;
}

}  // namespace aorta::trace
