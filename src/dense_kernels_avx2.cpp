// AVX2 + FMA products of denseLayer (dense_kernels.h). Plain intrinsics on raw arrays, no
// inline library code, so nothing compiled here for AVX2 can stand in for code of other files.
#include <immintrin.h>

#include "dense_kernels.h"

namespace pcl_dise {
namespace detail {
namespace avx2 {

namespace {

// R rows at a time, B blocks of 8 outputs (columns of w, whose rows are w_stride floats apart):
// R * B accumulators stay in registers (R * B = 8 keeps both FMA ports busy through their latency).
template <int B, int R>
void rowBlocks(const float* in, int rows, int in_cols, int in_stride, const float* w, int w_stride, const float* bias,
               bool relu, float* result, int result_stride) {
  const __m256 zero = _mm256_setzero_ps();
  int r = 0;
  for (; r + R <= rows; r += R) {
    __m256 acc[R][B];
    for (int i = 0; i < R; ++i)
      for (int b = 0; b < B; ++b) acc[i][b] = _mm256_loadu_ps(bias + 8 * b);
    const float* x = in + r * in_stride;
    for (int c = 0; c < in_cols; ++c) {
      const float* wc = w + c * w_stride;
      __m256 wv[B];
      for (int b = 0; b < B; ++b) wv[b] = _mm256_loadu_ps(wc + 8 * b);
      for (int i = 0; i < R; ++i) {
        const __m256 v = _mm256_broadcast_ss(x + i * in_stride + c);
        for (int b = 0; b < B; ++b) acc[i][b] = _mm256_fmadd_ps(v, wv[b], acc[i][b]);
      }
    }
    for (int i = 0; i < R; ++i)
      for (int b = 0; b < B; ++b)
        _mm256_storeu_ps(result + (r + i) * result_stride + 8 * b, relu ? _mm256_max_ps(acc[i][b], zero) : acc[i][b]);
  }
  // The last rows, one at a time.
  for (; r < rows; ++r) {
    const float* x = in + r * in_stride;
    __m256 acc[B];
    for (int b = 0; b < B; ++b) acc[b] = _mm256_loadu_ps(bias + 8 * b);
    for (int c = 0; c < in_cols; ++c) {
      const __m256 v = _mm256_broadcast_ss(x + c);
      for (int b = 0; b < B; ++b) acc[b] = _mm256_fmadd_ps(v, _mm256_loadu_ps(w + c * w_stride + 8 * b), acc[b]);
    }
    for (int b = 0; b < B; ++b) _mm256_storeu_ps(result + r * result_stride + 8 * b, relu ? _mm256_max_ps(acc[b], zero) : acc[b]);
  }
}

}  // namespace

void denseLayer(const float* in, int rows, int in_cols, int in_stride, const float* w, const float* bias, int out,
                bool relu, float* result, int result_stride) {
  // Groups of 32 outputs (4 blocks x 2 rows: 6 loads per 8 FMAs; wider blocks would need more
  // weight loads per broadcast than the load ports serve), then the rest.
  int first = 0;
  for (; first + 32 <= out; first += 32)
    rowBlocks<4, 2>(in, rows, in_cols, in_stride, w + first, out, bias + first, relu, result + first, result_stride);
  const float* wr = w + first;
  const float* br = bias + first;
  float* rr = result + first;
  switch (out - first) {
    case 8: return rowBlocks<1, 8>(in, rows, in_cols, in_stride, wr, out, br, relu, rr, result_stride);
    case 16: return rowBlocks<2, 4>(in, rows, in_cols, in_stride, wr, out, br, relu, rr, result_stride);
    case 24: return rowBlocks<3, 3>(in, rows, in_cols, in_stride, wr, out, br, relu, rr, result_stride);
    default: return;
  }
}

}  // namespace avx2
}  // namespace detail
}  // namespace pcl_dise
