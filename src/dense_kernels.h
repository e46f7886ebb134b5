#pragma once
// The per-edge linear layers of the native backend: small row-major products, with AVX2 + FMA and
// AVX-512 versions chosen at run time where the processor has them (the library itself is built
// for the default x86-64 target, whose ABI PCL and Eigen users share).
#include <vector>

namespace pcl_dise {
namespace detail {

/** result (rows x out) = act(in (rows x in_cols) * w (in_cols x out) + bias (out)), all row-major;
 *  in's rows are in_stride floats apart, result's result_stride; act is max(0, .) where relu.
 *  Runs the widest implementation whose width divides out. */
void denseLayer(const float* in, int rows, int in_cols, int in_stride, const float* w, const float* bias, int out,
                bool relu, float* result, int result_stride);

using DenseLayerFunction = void (*)(const float* in, int rows, int in_cols, int in_stride, const float* w,
                                    const float* bias, int out, bool relu, float* result, int result_stride);

struct DenseLayerImplementation {
  const char* name;            // "portable", "AVX2", "AVX-512"
  int width;                   // it takes output widths that are multiples of this
  DenseLayerFunction function;
};

/** The implementations denseLayer chooses from on this processor, narrowest (portable, width 1)
 *  first. The environment variable PCL_DISE_SIMD=portable|avx2 caps them (for comparisons). */
const std::vector<DenseLayerImplementation>& denseLayerImplementations();

/** The widest of them: the instruction set the native backend's products run with. */
const char* denseLayerInstructionSet();

// Compiled in their own translation units with -mavx2 -mfma and -mavx512f; call only through
// denseLayerImplementations(), which offers them only where the processor has them.
namespace avx2 {
void denseLayer(const float* in, int rows, int in_cols, int in_stride, const float* w, const float* bias, int out,
                bool relu, float* result, int result_stride);
}  // namespace avx2
namespace avx512 {
void denseLayer(const float* in, int rows, int in_cols, int in_stride, const float* w, const float* bias, int out,
                bool relu, float* result, int result_stride);
}  // namespace avx512

}  // namespace detail
}  // namespace pcl_dise
