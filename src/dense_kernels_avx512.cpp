// AVX-512 products of denseLayer (dense_kernels.h); compiled with -mavx512f.
#include <immintrin.h>

#include "dense_kernels.h"
#include "dense_kernels_simd.h"

namespace pcl_dise {
namespace detail {
namespace avx512 {

namespace {

struct Avx512 {
  using Reg = __m512;
  static constexpr int width = 16;
  static Reg load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, Reg v) { _mm512_storeu_ps(p, v); }
  static Reg broadcast(const float* p) { return _mm512_set1_ps(*p); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
  // (the masked form: GCC 12 warns about _mm512_max_ps's undefined pass-through operand)
  static Reg relu(Reg v) { return _mm512_maskz_max_ps(0xffff, v, _mm512_setzero_ps()); }
};

}  // namespace

void denseLayer(const float* in, int rows, int in_cols, int in_stride, const float* w, const float* bias, int out,
                bool relu, float* result, int result_stride) {
  blockedDenseLayer<Avx512>(in, rows, in_cols, in_stride, w, bias, out, relu, result, result_stride);
}

}  // namespace avx512
}  // namespace detail
}  // namespace pcl_dise
