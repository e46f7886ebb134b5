// The native backend's dense products against a double-precision reference: every output width
// the AVX2 version covers, odd and even row counts, strided input and output, ReLU, and a width that takes
// the portable loops.
#include <random>

#include <gtest/gtest.h>

#include "dense_kernels.h"

namespace {

void checkDense(int rows, int in_cols, int in_stride, int out, bool relu) {
  std::mt19937 rng(rows * 131 + out);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> in(rows * in_stride), w(in_cols * out), bias(out);
  for (auto* v : {&in, &w, &bias})
    for (auto& x : *v) x = u(rng);
  // Results go into every other block of out floats, the blocks between must stay untouched.
  std::vector<float> result(2 * rows * out, 99.f);
  pcl_dise::detail::denseLayer(in.data(), rows, in_cols, in_stride, w.data(), bias.data(), out, relu, result.data(), 2 * out);
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < out; ++o) {
      double expected = bias[o];
      for (int c = 0; c < in_cols; ++c) expected += double(in[r * in_stride + c]) * w[c * out + o];
      if (relu) expected = std::max(expected, 0.0);
      ASSERT_NEAR(result[2 * r * out + o], expected, 1e-5) << "rows " << rows << " out " << out << " at " << r << "," << o;
      ASSERT_EQ(result[(2 * r + 1) * out + o], 99.f);
    }
}

TEST(DenseKernels, MatchTheReference) {
  for (int out : {8, 16, 24, 32, 40, 48, 56, 64, 72, 96, 5})
    for (int rows : {1, 2, 7, 65})
      for (bool relu : {false, true}) {
        checkDense(rows, 16, 16, out, relu);
        checkDense(rows, 19, 23, out, relu);  // strided rows
      }
}

}  // namespace
