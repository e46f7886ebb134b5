// AVX2 + FMA products of denseLayer (dense_kernels.h). Plain intrinsics on raw arrays, no
// inline library code, so nothing compiled here for AVX2 can stand in for code of other files.
#include <immintrin.h>

#include "dense_kernels.h"

namespace pcl_dise {
namespace detail {
namespace avx2 {

namespace {

// Two rows at a time, B blocks of 8 outputs: 2B accumulators stay in registers.
template <int B>
void rowPairs(const float* in, int rows, int in_cols, int in_stride, const float* w, const float* bias, bool relu,
              float* result) {
  constexpr int out = 8 * B;
  const __m256 zero = _mm256_setzero_ps();
  int r = 0;
  for (; r + 1 < rows; r += 2) {
    const float* x0 = in + r * in_stride;
    const float* x1 = x0 + in_stride;
    __m256 a0[B], a1[B];
    for (int b = 0; b < B; ++b) a0[b] = a1[b] = _mm256_loadu_ps(bias + 8 * b);
    for (int c = 0; c < in_cols; ++c) {
      const __m256 v0 = _mm256_broadcast_ss(x0 + c), v1 = _mm256_broadcast_ss(x1 + c);
      const float* wc = w + c * out;
      for (int b = 0; b < B; ++b) {
        const __m256 wv = _mm256_loadu_ps(wc + 8 * b);
        a0[b] = _mm256_fmadd_ps(v0, wv, a0[b]);
        a1[b] = _mm256_fmadd_ps(v1, wv, a1[b]);
      }
    }
    for (int b = 0; b < B; ++b) {
      _mm256_storeu_ps(result + r * out + 8 * b, relu ? _mm256_max_ps(a0[b], zero) : a0[b]);
      _mm256_storeu_ps(result + (r + 1) * out + 8 * b, relu ? _mm256_max_ps(a1[b], zero) : a1[b]);
    }
  }
  if (r < rows) {
    const float* x0 = in + r * in_stride;
    __m256 a0[B];
    for (int b = 0; b < B; ++b) a0[b] = _mm256_loadu_ps(bias + 8 * b);
    for (int c = 0; c < in_cols; ++c) {
      const __m256 v0 = _mm256_broadcast_ss(x0 + c);
      for (int b = 0; b < B; ++b) a0[b] = _mm256_fmadd_ps(v0, _mm256_loadu_ps(w + c * out + 8 * b), a0[b]);
    }
    for (int b = 0; b < B; ++b) _mm256_storeu_ps(result + r * out + 8 * b, relu ? _mm256_max_ps(a0[b], zero) : a0[b]);
  }
}

}  // namespace

void denseLayer(const float* in, int rows, int in_cols, int in_stride, const float* w, const float* bias, int out,
                bool relu, float* result) {
  switch (out) {
    case 8: return rowPairs<1>(in, rows, in_cols, in_stride, w, bias, relu, result);
    case 16: return rowPairs<2>(in, rows, in_cols, in_stride, w, bias, relu, result);
    case 24: return rowPairs<3>(in, rows, in_cols, in_stride, w, bias, relu, result);
    default: return rowPairs<4>(in, rows, in_cols, in_stride, w, bias, relu, result);
  }
}

}  // namespace avx2
}  // namespace detail
}  // namespace pcl_dise
