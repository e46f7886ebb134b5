// AVX-512 registers with bfloat16 pair products (AVX512_BF16) for the edge MLPs of
// point_network_simd.h; included only by files compiled with -mavx512f -mavx512bf16.
#pragma once

#include <immintrin.h>

#include "simd_avx512.h"

namespace pcl_dise {
namespace detail {
namespace avx512_bf16 {
namespace {

struct Avx512Bf16 : avx512::Avx512 {
  // 16 lanes of two bfloat16 each: lane i holds one input row's value of point i in its low half
  // and the next row's in its high half.
  using Pairs = __m512i;
  static Pairs loadPairs(const float* p) { return _mm512_loadu_si512(p); }
  static void storePairs(float* p, Pairs v) { _mm512_storeu_si512(p, v); }
  // low and high rounded to bfloat16 as bfloat16Bits rounds (point_network.h), side by side in
  // each lane: low's in the low half, high's in the high half. Four integer operations, half the
  // time of vcvtne2ps2bf16 and the word permutation that would interleave its output.
  static Pairs pack(Reg low, Reg high) {
    const __m512i half = _mm512_set1_epi32(0x8000);
    const __m512i low_word = _mm512_maskz_srli_epi32(0xffff, _mm512_add_epi32(_mm512_castps_si512(low), half), 16);
    const __m512i high_word = _mm512_add_epi32(_mm512_castps_si512(high), half);
    // (high_word & 0xffff0000) | low_word, low_word's high half being 0. (The masked shift:
    // GCC 12 warns about the plain one's undefined pass-through operand.)
    return _mm512_ternarylogic_epi32(high_word, low_word, _mm512_set1_epi32(0xffff0000), 0xE4);
  }
  // acc + x_low w_low + x_high w_high in every lane, w: one bfloat16 pair (bfloat16Pair's bits).
  static Reg dotPairs(Reg acc, Pairs x, const float* w) {
    return _mm512_dpbf16_ps(acc, (__m512bh)x, (__m512bh)_mm512_set1_ps(*w));
  }
};

}  // namespace
}  // namespace avx512_bf16
}  // namespace detail
}  // namespace pcl_dise
