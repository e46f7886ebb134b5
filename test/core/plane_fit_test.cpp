// The weighted plane fit (plane_fit.h) shared by iteration 0 and every backend: known planes,
// the weights' effect, the sign rule, curvature, and the degenerate cases it refuses.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "pcl_dise/core/plane_fit.h"

namespace {

using pcl_dise::fitPlane;

// Points of the plane z = 0.5 x (normal (-0.5, 0, 1) / |.|) around the first point, and two
// points far off it.
std::vector<float> tiltedPlaneWithOutliers() {
  std::vector<float> p;
  for (int i = 0; i < 25; ++i) {
    const float x = 0.1f * (i % 5), y = 0.1f * (i / 5);
    p.insert(p.end(), {x, y, 0.5f * x});
  }
  p.insert(p.end(), {0.2f, 0.2f, 3.f, 0.3f, 0.1f, -2.f});
  return p;
}

TEST(PlaneFit, UnitWeightsArePca) {
  const std::vector<float> p = tiltedPlaneWithOutliers();
  std::vector<std::int32_t> plane(25);
  for (int i = 0; i < 25; ++i) plane[i] = i;
  float n[3], curvature;
  ASSERT_TRUE(fitPlane<double>(p.data(), p.data(), plane.data(), nullptr, 25, n, &curvature));
  const float len = std::sqrt(1.25f);
  // (-0.5, 0, 1) / |.|, whose dot product with (1, 2, 3) is positive: the sign rule keeps it.
  EXPECT_NEAR(n[0], -0.5f / len, 1e-5);
  EXPECT_NEAR(n[1], 0.f, 1e-5);
  EXPECT_NEAR(n[2], 1.f / len, 1e-5);
  EXPECT_NEAR(curvature, 0.f, 1e-6);
}

TEST(PlaneFit, ZeroWeightsIgnoreOutliers) {
  const std::vector<float> p = tiltedPlaneWithOutliers();
  std::vector<std::int32_t> all(27);
  for (int i = 0; i < 27; ++i) all[i] = i;
  std::vector<float> weights(27, 1.f / 25);
  weights[25] = weights[26] = 0.f;
  float n[3], curvature, n_all[3], curvature_all;
  ASSERT_TRUE(fitPlane<double>(p.data(), p.data(), all.data(), weights.data(), 27, n, &curvature));
  ASSERT_TRUE(fitPlane<double>(p.data(), p.data(), all.data(), nullptr, 27, n_all, &curvature_all));
  EXPECT_NEAR(n[2] * std::sqrt(1.25f), 1.f, 1e-5);  // the outliers do not tilt the weighted fit
  EXPECT_GT(curvature_all, 0.01f);                  // but they do the unweighted one
  EXPECT_NEAR(curvature, 0.f, 1e-6);
}

TEST(PlaneFit, DegenerateNeighbourhoodsAreRefusedAndLeaveTheOutputs) {
  const std::vector<float> same = {1, 2, 3, 1, 2, 3, 1, 2, 3};
  const std::int32_t ids[] = {0, 1, 2};
  float n[3] = {7, 7, 7}, curvature = 7;
  EXPECT_FALSE(fitPlane<double>(same.data(), same.data(), ids, nullptr, 3, n, &curvature));  // no spread
  const std::vector<float> p = tiltedPlaneWithOutliers();
  const float zero[3] = {0, 0, 0};
  EXPECT_FALSE(fitPlane<double>(p.data(), p.data(), ids, zero, 3, n, &curvature));  // weights sum to 0
  EXPECT_EQ(n[0], 7.f);
  EXPECT_EQ(curvature, 7.f);
}

}  // namespace
