// The native backend's dense products against a double-precision reference: every implementation
// this processor runs (portable, AVX2, AVX-512) at the output widths it takes, odd and even row
// counts, strided input and output, ReLU; and denseLayer's choice among them.
#include <iostream>
#include <random>

#include <gtest/gtest.h>

#include "dense_kernels.h"

namespace {

using pcl_dise::detail::DenseLayerFunction;

void checkDense(DenseLayerFunction dense, int rows, int in_cols, int in_stride, int out, bool relu) {
  std::mt19937 rng(rows * 131 + out);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> in(rows * in_stride), w(in_cols * out), bias(out);
  for (auto* v : {&in, &w, &bias})
    for (auto& x : *v) x = u(rng);
  // Results go into every other block of out floats, the blocks between must stay untouched.
  std::vector<float> result(2 * rows * out, 99.f);
  dense(in.data(), rows, in_cols, in_stride, w.data(), bias.data(), out, relu, result.data(), 2 * out);
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < out; ++o) {
      double expected = bias[o];
      for (int c = 0; c < in_cols; ++c) expected += double(in[r * in_stride + c]) * w[c * out + o];
      if (relu) expected = std::max(expected, 0.0);
      ASSERT_NEAR(result[2 * r * out + o], expected, 1e-5) << "rows " << rows << " out " << out << " at " << r << "," << o;
      ASSERT_EQ(result[(2 * r + 1) * out + o], 99.f);
    }
}

TEST(DenseKernels, EveryImplementationMatchesTheReference) {
  for (const auto& implementation : pcl_dise::detail::denseLayerImplementations()) {
    SCOPED_TRACE(implementation.name);
    for (int out : {8, 16, 24, 32, 40, 48, 56, 64, 72, 96, 5})
      if (out % implementation.width == 0)
        for (int rows : {1, 2, 7, 65})
          for (bool relu : {false, true}) {
            checkDense(implementation.function, rows, 16, 16, out, relu);
            checkDense(implementation.function, rows, 19, 23, out, relu);  // strided rows
          }
  }
}

TEST(DenseKernels, DenseLayerTakesTheWidestImplementationThatFits) {
  for (int out : {5, 8, 16, 24, 64}) {
    SCOPED_TRACE(out);
    checkDense(pcl_dise::detail::denseLayer, 7, 19, 23, out, true);
  }
  const auto& implementations = pcl_dise::detail::denseLayerImplementations();
  ASSERT_FALSE(implementations.empty());
  EXPECT_STREQ(implementations.front().name, "portable");
  EXPECT_STREQ(pcl_dise::detail::denseLayerInstructionSet(), implementations.back().name);
  std::cout << "dense products run with " << pcl_dise::detail::denseLayerInstructionSet() << "\n";
}

}  // namespace
