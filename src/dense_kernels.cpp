#include "dense_kernels.h"

namespace pcl_dise {
namespace detail {

namespace {

void portableDenseLayer(const float* in, int rows, int in_cols, int in_stride, const float* w, const float* bias, int out,
                        bool relu, float* result, int result_stride) {
  for (int r = 0; r < rows; ++r) {
    const float* x = in + r * in_stride;
    float* y = result + r * result_stride;
    for (int o = 0; o < out; ++o) y[o] = bias[o];
    for (int c = 0; c < in_cols; ++c)
      for (int o = 0; o < out; ++o) y[o] += x[c] * w[c * out + o];
    if (relu)
      for (int o = 0; o < out; ++o) y[o] = y[o] > 0.f ? y[o] : 0.f;
  }
}

bool processorHasAvx2() {
#if defined(__x86_64__) && defined(PCL_DISE_HAVE_AVX2_KERNELS)
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

}  // namespace

bool denseLayerUsesAvx2() {
  static const bool avx2 = processorHasAvx2();
  return avx2;
}

void denseLayer(const float* in, int rows, int in_cols, int in_stride, const float* w, const float* bias, int out,
                bool relu, float* result, int result_stride) {
#ifdef PCL_DISE_HAVE_AVX2_KERNELS
  if (denseLayerUsesAvx2() && out % 8 == 0)
    return avx2::denseLayer(in, rows, in_cols, in_stride, w, bias, out, relu, result, result_stride);
#endif
  portableDenseLayer(in, rows, in_cols, in_stride, w, bias, out, relu, result, result_stride);
}

}  // namespace detail
}  // namespace pcl_dise
