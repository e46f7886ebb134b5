// The per-edge inputs and the kernel's rotation (edge_features.h), by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "pcl_dise/core/edge_features.h"

namespace {

TEST(EdgeFeatures, HandComputed) {
  const float pi[3] = {1, 1, 1}, pj[3] = {1, 1, 3}, ni[3] = {0, 0, 2}, nj[3] = {1, 0, 0};
  float out[8];
  pcl_dise::edgeFeatures(pi, pj, ni, nj, 0.5f, 0.25f, out);
  // c = 0.5 (0, 0, 2) = (0, 0, 1); cos(n_i, c) = 1 (signed, unnormalised n_i); cos(n_j, c) = 0;
  // cos(n_i, n_j) = 0; |c| = 1.
  const float expected[8] = {0, 0, 1, 0.25f, 1, 0, 0, 1};
  for (int f = 0; f < 8; ++f) EXPECT_FLOAT_EQ(out[f], expected[f]) << f;
  const float flipped[3] = {0, 0, -1};
  pcl_dise::edgeFeatures(pi, pj, flipped, nj, 0.5f, 0.25f, out);
  EXPECT_FLOAT_EQ(out[4], -1.f);  // the cosines keep their sign
}

TEST(EdgeFeatures, SelfEdgeHasZeroCosines) {
  const float p[3] = {2, 3, 4}, n[3] = {0, 1, 0};
  float out[8];
  pcl_dise::edgeFeatures(p, p, n, n, 3.f, 0.1f, out);
  EXPECT_EQ(out[0], 0.f);
  EXPECT_EQ(out[4], 0.f);  // cos(n_i, 0) is 0, not NaN
  EXPECT_EQ(out[5], 0.f);
  EXPECT_FLOAT_EQ(out[6], 1.f);
  EXPECT_EQ(out[7], 0.f);
}

TEST(Rotation, QuaternionIsNormalisedAndGivesARotation) {
  const float q[4] = {2, 0, 0, 2};  // 90 degrees about z, not unit length
  float r[3][3];
  pcl_dise::rotationFromQuaternion(q, r);
  const float expected[3][3] = {{0, -1, 0}, {1, 0, 0}, {0, 0, 1}};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) EXPECT_NEAR(r[a][b], expected[a][b], 1e-6) << a << b;
  const float zero[4] = {0, 0, 0, 0};
  pcl_dise::rotationFromQuaternion(zero, r);  // |q| + 1e-8 keeps it finite: the identity minus nothing
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) EXPECT_TRUE(std::isfinite(r[a][b]));
}

}  // namespace
