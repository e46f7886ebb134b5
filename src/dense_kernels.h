#pragma once
// The per-edge linear layers of the native backend: small row-major products, with an AVX2+FMA
// version chosen at run time where the processor has it (the library itself is built for the
// default x86-64 target, whose ABI PCL and Eigen users share).

namespace pcl_dise {
namespace detail {

/** result (rows x out) = act(in (rows x in_cols) * w (in_cols x out) + bias (out)), all row-major;
 *  in's rows are in_stride floats apart, result's result_stride; act is max(0, .) where relu.
 *  The AVX2 version covers every multiple of 8; other sizes take the portable loops. */
void denseLayer(const float* in, int rows, int in_cols, int in_stride, const float* w, const float* bias, int out,
                bool relu, float* result, int result_stride);

/** Whether denseLayer runs its AVX2 + FMA version on this processor. */
bool denseLayerUsesAvx2();

namespace avx2 {
// Compiled with -mavx2 -mfma in its own translation unit; call only where the processor has both.
void denseLayer(const float* in, int rows, int in_cols, int in_stride, const float* w, const float* bias, int out,
                bool relu, float* result, int result_stride);
}  // namespace avx2

}  // namespace detail
}  // namespace pcl_dise
