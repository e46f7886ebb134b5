#include "dense_kernels.h"

#include "pcl_dise/forward.h"

#include <cstdlib>
#include <cstring>

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

std::vector<DenseLayerImplementation> availableImplementations() {
  std::vector<DenseLayerImplementation> found{{"portable", 1, portableDenseLayer}};
  const char* cap = std::getenv("PCL_DISE_SIMD");
  if (cap && std::strcmp(cap, "portable") == 0) return found;
#if defined(__x86_64__) && defined(PCL_DISE_HAVE_AVX2_KERNELS)
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return found;
  found.push_back({"AVX2", 8, avx2::denseLayer});
  if (cap && std::strcmp(cap, "avx2") == 0) return found;
#endif
#if defined(__x86_64__) && defined(PCL_DISE_HAVE_AVX512_KERNELS)
  if (__builtin_cpu_supports("avx512f")) found.push_back({"AVX-512", 16, avx512::denseLayer});
#endif
  return found;
}

}  // namespace

const std::vector<DenseLayerImplementation>& denseLayerImplementations() {
  static const std::vector<DenseLayerImplementation> implementations = availableImplementations();
  return implementations;
}

const char* denseLayerInstructionSet() { return denseLayerImplementations().back().name; }

}  // namespace detail

std::string nativeInstructionSet() { return detail::denseLayerInstructionSet(); }

namespace detail {

void denseLayer(const float* in, int rows, int in_cols, int in_stride, const float* w, const float* bias, int out,
                bool relu, float* result, int result_stride) {
  const auto& implementations = denseLayerImplementations();
  for (auto it = implementations.rbegin(); it != implementations.rend(); ++it)
    if (out % it->width == 0) return it->function(in, rows, in_cols, in_stride, w, bias, out, relu, result, result_stride);
}

}  // namespace detail
}  // namespace pcl_dise
