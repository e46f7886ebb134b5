// AVX-512 registers for the kernels of point_network_simd.h and point_training_simd.h; included
// only by files compiled with -mavx512f.
#pragma once

#include <immintrin.h>

#include "point_network_simd.h"

namespace pcl_dise {
namespace detail {
namespace avx512 {
// Internal linkage: the AVX-512 BF16 unit, compiled with more instructions, has its own copy.
namespace {

struct Avx512 {
  using Reg = __m512;
  static constexpr int width = 16;
  static constexpr int lanes = 4;    // registers of a block: 16 accumulators, 4 inputs and a weight
  static constexpr int outputs = 4;  // of the 32 registers
  static Reg load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, Reg v) { _mm512_storeu_ps(p, v); }
  static Reg set1(float v) { return _mm512_set1_ps(v); }
  static Reg add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
  static Reg sub(Reg a, Reg b) { return _mm512_sub_ps(a, b); }
  static Reg mul(Reg a, Reg b) { return _mm512_mul_ps(a, b); }
  static Reg div(Reg a, Reg b) { return _mm512_div_ps(a, b); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
  // (the masked forms here and below: GCC 12 warns about the undefined pass-through operand of
  // the plain ones, _mm512_reduce_add_ps's included)
  static Reg max(Reg a, Reg b) { return _mm512_maskz_max_ps(0xffff, a, b); }
  static Reg min(Reg a, Reg b) { return _mm512_maskz_min_ps(0xffff, a, b); }
  static Reg relu(Reg v) { return max(v, _mm512_setzero_ps()); }
  static Reg sqrt(Reg v) { return _mm512_maskz_sqrt_ps(0xffff, v); }
  // value where x >= bound (or is NaN), fill where x < bound.
  static Reg fillWhereBelow(Reg x, float bound, float fill, Reg value) {
    return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(x, set1(bound), _CMP_NLT_UQ), set1(fill), value);
  }
  // Lanes n.. become `value`.
  static Reg fillTail(Reg v, int n, float value) {
    const __mmask16 keep = n >= width ? 0xffff : static_cast<__mmask16>((1u << n) - 1);
    return _mm512_mask_blend_ps(keep, set1(value), v);
  }
  // Every lane combined with the others by `op`: across the 128-bit quarters, then within them.
  template <typename Op>
  static float reduce(Reg v, Op op) {
    v = op(v, _mm512_maskz_shuffle_f32x4(0xffff, v, v, _MM_SHUFFLE(1, 0, 3, 2)));
    v = op(v, _mm512_maskz_shuffle_f32x4(0xffff, v, v, _MM_SHUFFLE(2, 3, 0, 1)));
    v = op(v, _mm512_maskz_permute_ps(0xffff, v, _MM_SHUFFLE(1, 0, 3, 2)));
    v = op(v, _mm512_maskz_permute_ps(0xffff, v, _MM_SHUFFLE(2, 3, 0, 1)));
    return _mm512_cvtss_f32(v);
  }
  static float sum(Reg v) { return reduce(v, add); }
  static float maximum(Reg v) { return reduce(v, max); }
  static Reg round(Reg v) {
    return _mm512_maskz_roundscale_ps(0xffff, v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  static Reg pow2(Reg n) {
    const __m512i exponent = _mm512_add_epi32(_mm512_maskz_cvtps_epi32(0xffff, n), _mm512_set1_epi32(127));
    return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(0xffff, exponent, 23));
  }
  static Reg exp(Reg x) { return expPolynomial<Avx512>(x); }
};

}  // namespace
}  // namespace avx512
}  // namespace detail
}  // namespace pcl_dise
