#pragma once
// The register-blocked product behind denseLayer (dense_kernels.h), written once over a SIMD type
// V: V::width floats per register, V::Reg, and load / store / broadcast / fma / relu. Included only
// by the translation units compiled for one instruction set each (dense_kernels_avx2.cpp,
// dense_kernels_avx512.cpp); everything here has internal linkage, so no instance compiled for one
// instruction set can stand in for another's at link time.

namespace pcl_dise {
namespace detail {
namespace {

// R rows at a time, B registers of outputs (columns of w, whose rows are w_stride floats apart):
// R * B accumulators stay in registers (R * B = 8 keeps both FMA ports busy through their latency).
template <typename V, int B, int R>
void rowBlocks(const float* in, int rows, int in_cols, int in_stride, const float* w, int w_stride, const float* bias,
               bool relu, float* result, int result_stride) {
  using Reg = typename V::Reg;
  constexpr int W = V::width;
  int r = 0;
  for (; r + R <= rows; r += R) {
    Reg acc[R][B];
    for (int i = 0; i < R; ++i)
      for (int b = 0; b < B; ++b) acc[i][b] = V::load(bias + W * b);
    const float* x = in + r * in_stride;
    for (int c = 0; c < in_cols; ++c) {
      const float* wc = w + c * w_stride;
      Reg wv[B];
      for (int b = 0; b < B; ++b) wv[b] = V::load(wc + W * b);
      for (int i = 0; i < R; ++i) {
        const Reg v = V::broadcast(x + i * in_stride + c);
        for (int b = 0; b < B; ++b) acc[i][b] = V::fma(v, wv[b], acc[i][b]);
      }
    }
    for (int i = 0; i < R; ++i)
      for (int b = 0; b < B; ++b) V::store(result + (r + i) * result_stride + W * b, relu ? V::relu(acc[i][b]) : acc[i][b]);
  }
  // The last rows, one at a time.
  for (; r < rows; ++r) {
    const float* x = in + r * in_stride;
    Reg acc[B];
    for (int b = 0; b < B; ++b) acc[b] = V::load(bias + W * b);
    for (int c = 0; c < in_cols; ++c) {
      const Reg v = V::broadcast(x + c);
      for (int b = 0; b < B; ++b) acc[b] = V::fma(v, V::load(w + c * w_stride + W * b), acc[b]);
    }
    for (int b = 0; b < B; ++b) V::store(result + r * result_stride + W * b, relu ? V::relu(acc[b]) : acc[b]);
  }
}

// denseLayer for an output width that is a multiple of V::width.
template <typename V>
void blockedDenseLayer(const float* in, int rows, int in_cols, int in_stride, const float* w, const float* bias, int out,
                       bool relu, float* result, int result_stride) {
  // Groups of 4 registers of outputs x 2 rows (6 loads per 8 FMAs; wider groups would need more
  // weight loads per broadcast than the load ports serve), then the rest.
  constexpr int group = 4 * V::width;
  int first = 0;
  for (; first + group <= out; first += group)
    rowBlocks<V, 4, 2>(in, rows, in_cols, in_stride, w + first, out, bias + first, relu, result + first, result_stride);
  const float* wr = w + first;
  const float* br = bias + first;
  float* rr = result + first;
  switch ((out - first) / V::width) {
    case 1: return rowBlocks<V, 1, 8>(in, rows, in_cols, in_stride, wr, out, br, relu, rr, result_stride);
    case 2: return rowBlocks<V, 2, 4>(in, rows, in_cols, in_stride, wr, out, br, relu, rr, result_stride);
    case 3: return rowBlocks<V, 3, 3>(in, rows, in_cols, in_stride, wr, out, br, relu, rr, result_stride);
    default: return;
  }
}

}  // namespace
}  // namespace detail
}  // namespace pcl_dise
