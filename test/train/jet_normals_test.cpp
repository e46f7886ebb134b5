// Jet fitting against surfaces whose normals are known: a tilted plane (exact) and a sphere
// (close, a quadric fits it well); bad k is refused.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "pcl_dise/train/jet_normals.h"

namespace {

using pcl_dise::train::jetNormals;

double angleDeg(const std::array<float, 3>& a, const std::array<double, 3>& b) {
  const double dot =
      std::fabs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / std::sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
  return std::acos(std::min(1.0, dot)) * 180.0 / M_PI;
}

TEST(JetNormals, TiltedPlaneIsExact) {
  // z = 0.3 x - 0.2 y: normal (-0.3, 0.2, 1).
  std::vector<std::array<float, 3>> points;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int i = 0; i < 400; ++i) {
    const float x = u(rng), y = u(rng);
    points.push_back({x, y, 0.3f * x - 0.2f * y});
  }
  const auto normals = jetNormals(points, 20);
  ASSERT_EQ(normals.size(), points.size());
  for (const auto& n : normals) {
    EXPECT_NEAR(std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), 1.0, 1e-5);
    EXPECT_LT(angleDeg(n, {-0.3, 0.2, 1}), 0.05);
  }
}

TEST(JetNormals, SphereNormalsAreRadial) {
  std::vector<std::array<float, 3>> points;
  std::mt19937 rng(2);
  std::normal_distribution<float> g;
  for (int i = 0; i < 2000; ++i) {
    float p[3] = {g(rng), g(rng), g(rng)};
    const float r = std::sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    points.push_back({p[0] / r, p[1] / r, p[2] / r});
  }
  const auto normals = jetNormals(points, 30);
  for (std::size_t i = 0; i < points.size(); ++i)
    EXPECT_LT(angleDeg(normals[i], {points[i][0], points[i][1], points[i][2]}), 1.0) << i;
}

TEST(JetNormals, RefusesTooFewPoints) {
  std::vector<std::array<float, 3>> points(10, {0, 0, 0});
  EXPECT_THROW(jetNormals(points, 5), std::invalid_argument);
  EXPECT_THROW(jetNormals(points, 11), std::invalid_argument);
}

}  // namespace
