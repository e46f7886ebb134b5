// mortonOrder (spatial_order.h) on hand-made point sets: a permutation, the Z-curve of a
// 2 x 2 x 2 grid, non-finite points last, degenerate boxes.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include <gtest/gtest.h>

#include "pcl_dise/core/spatial_order.h"

using pcl_dise::mortonOrder;

TEST(MortonOrder, GridCornersFollowTheZCurve) {
  // Corners listed in reverse Z order; x is the lowest bit of the curve, then y, then z.
  std::vector<float> points;
  for (int code = 7; code >= 0; --code) {
    points.push_back(static_cast<float>(code & 1));
    points.push_back(static_cast<float>(code >> 1 & 1));
    points.push_back(static_cast<float>(code >> 2 & 1));
  }
  EXPECT_EQ(mortonOrder(points.data(), 8), (std::vector<std::int32_t>{7, 6, 5, 4, 3, 2, 1, 0}));
}

TEST(MortonOrder, IsAPermutationThatKeepsNeighboursClose) {
  // Points on a line in shuffled order: the curve must sort them along the line (either way).
  const int n = 1000;
  std::vector<int> position(n);
  std::iota(position.begin(), position.end(), 0);
  std::shuffle(position.begin(), position.end(), std::mt19937(3));
  std::vector<float> points;
  for (int i = 0; i < n; ++i) points.insert(points.end(), {0.5f * position[i], 2.f, -1.f});
  const auto order = mortonOrder(points.data(), n);
  ASSERT_EQ(order.size(), static_cast<std::size_t>(n));
  std::vector<std::int32_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i);
  for (int t = 0; t < n; ++t) ASSERT_EQ(position[order[t]], t);
}

TEST(MortonOrder, NonFinitePointsComeLastInIndexOrder) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> points = {nan, 0, 0, 3, 3, 3, 0, inf, 0, 0, 0, 0, 1, 1, nan};
  EXPECT_EQ(mortonOrder(points.data(), 5), (std::vector<std::int32_t>{3, 1, 0, 2, 4}));
}

TEST(MortonOrder, DegenerateInputs) {
  EXPECT_TRUE(mortonOrder(nullptr, 0).empty());
  const std::vector<float> same = {1, 2, 3, 1, 2, 3, 1, 2, 3};  // zero extent: index order
  EXPECT_EQ(mortonOrder(same.data(), 3), (std::vector<std::int32_t>{0, 1, 2}));
  const std::vector<float> huge = {-3e38f, 0, 0, 3e38f, 0, 0};  // extent beyond float range
  EXPECT_EQ(mortonOrder(huge.data(), 2), (std::vector<std::int32_t>{0, 1}));
}
