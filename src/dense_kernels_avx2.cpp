// AVX2 + FMA products of denseLayer (dense_kernels.h); compiled with -mavx2 -mfma.
#include <immintrin.h>

#include "dense_kernels.h"
#include "dense_kernels_simd.h"

namespace pcl_dise {
namespace detail {
namespace avx2 {

namespace {

struct Avx2 {
  using Reg = __m256;
  static constexpr int width = 8;
  static Reg load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, Reg v) { _mm256_storeu_ps(p, v); }
  static Reg broadcast(const float* p) { return _mm256_broadcast_ss(p); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
  static Reg relu(Reg v) { return _mm256_max_ps(v, _mm256_setzero_ps()); }
};

}  // namespace

void denseLayer(const float* in, int rows, int in_cols, int in_stride, const float* w, const float* bias, int out,
                bool relu, float* result, int result_stride) {
  blockedDenseLayer<Avx2>(in, rows, in_cols, in_stride, w, bias, out, relu, result, result_stride);
}

}  // namespace avx2
}  // namespace detail
}  // namespace pcl_dise
