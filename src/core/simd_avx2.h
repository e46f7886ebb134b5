// AVX2 + FMA registers for the kernels of point_network_simd.h and point_training_simd.h; included
// only by files compiled with -mavx2 -mfma.
#pragma once

#include <immintrin.h>

#include "point_network_simd.h"

namespace pcl_dise {
namespace detail {
namespace avx2 {

struct Avx2 {
  using Reg = __m256;
  static constexpr int width = 8;
  static constexpr int lanes = 3;  // 12 accumulators, 3 inputs and a weight: the 16 registers
  static constexpr int outputs = 4;
  static Reg load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, Reg v) { _mm256_storeu_ps(p, v); }
  static Reg set1(float v) { return _mm256_set1_ps(v); }
  static Reg add(Reg a, Reg b) { return _mm256_add_ps(a, b); }
  static Reg sub(Reg a, Reg b) { return _mm256_sub_ps(a, b); }
  static Reg mul(Reg a, Reg b) { return _mm256_mul_ps(a, b); }
  static Reg div(Reg a, Reg b) { return _mm256_div_ps(a, b); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
  static Reg max(Reg a, Reg b) { return _mm256_max_ps(a, b); }
  static Reg min(Reg a, Reg b) { return _mm256_min_ps(a, b); }
  static Reg relu(Reg v) { return max(v, _mm256_setzero_ps()); }
  static Reg sqrt(Reg v) { return _mm256_sqrt_ps(v); }
  // value where x >= bound (or is NaN), fill where x < bound.
  static Reg fillWhereBelow(Reg x, float bound, float fill, Reg value) {
    return _mm256_blendv_ps(value, set1(fill), _mm256_cmp_ps(x, set1(bound), _CMP_LT_OQ));
  }
  // Lanes n.. become `value`.
  static Reg fillTail(Reg v, int n, float value) {
    const Reg lane = _mm256_setr_ps(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_blendv_ps(set1(value), v, _mm256_cmp_ps(lane, set1(static_cast<float>(n)), _CMP_LT_OQ));
  }
  static float sum(Reg v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
  }
  static float maximum(Reg v) {
    __m128 m = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    m = _mm_max_ps(m, _mm_movehl_ps(m, m));
    return _mm_cvtss_f32(_mm_max_ss(m, _mm_movehdup_ps(m)));
  }
  static Reg round(Reg v) { return _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC); }
  static Reg pow2(Reg n) {
    const __m256i exponent = _mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127));
    return _mm256_castsi256_ps(_mm256_slli_epi32(exponent, 23));
  }
  static Reg exp(Reg x) { return expPolynomial<Avx2>(x); }
};

}  // namespace avx2
}  // namespace detail
}  // namespace pcl_dise
