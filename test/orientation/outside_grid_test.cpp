// OutsideGrid on clouds whose outside is known: a sampled sphere encloses its centre and leaves the
// space around it outside; a sphere with a cap cut off, or a plane, encloses nothing; bad arguments
// are refused; an empty cloud is all outside.
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "pcl_dise/orientation/outside_grid.h"

namespace {

using pcl_dise::OutsideGrid;

// Points on the unit sphere; those with z above `cap` are left out (a hole).
std::vector<float> sphere(int n, float cap = 2.f, unsigned seed = 1) {
  std::mt19937 random(seed);
  std::normal_distribution<float> gauss;
  std::vector<float> points;
  while (points.size() < 3u * n) {
    float v[3] = {gauss(random), gauss(random), gauss(random)};
    const float r = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (v[2] / r > cap) continue;
    points.insert(points.end(), {v[0] / r, v[1] / r, v[2] / r});
  }
  return points;
}

TEST(OutsideGrid, ASphereEnclosesItsCentre) {
  const std::vector<float> points = sphere(20000);
  const OutsideGrid grid(points.data(), points.size() / 3, 0.05f, 1);
  EXPECT_EQ(grid.cell(), 0.05f);
  EXPECT_GT(grid.enclosedCells(), grid.bandCells());
  const float centre[3] = {0, 0, 0}, near_centre[3] = {0.5f, 0.2f, -0.3f};
  EXPECT_FALSE(grid.outside(centre));
  EXPECT_FALSE(grid.outside(near_centre));
  EXPECT_TRUE(grid.enclosed(centre));
  EXPECT_TRUE(grid.enclosed(near_centre));
  const float beside[3] = {1.3f, 0.f, 0.f}, corner[3] = {0.95f, 0.95f, 0.95f}, far[3] = {10.f, 0.f, 0.f};
  EXPECT_TRUE(grid.outside(beside));
  EXPECT_TRUE(grid.outside(corner));
  EXPECT_TRUE(grid.outside(far));
  EXPECT_FALSE(grid.enclosed(beside));
  EXPECT_FALSE(grid.enclosed(far));
  const float surface[3] = {1.f, 0.f, 0.f};
  EXPECT_FALSE(grid.outside(surface));  // the band
  EXPECT_FALSE(grid.enclosed(surface));
  const float nan[3] = {std::numeric_limits<float>::quiet_NaN(), 0.f, 0.f};
  EXPECT_TRUE(grid.outside(nan));
  EXPECT_FALSE(grid.enclosed(nan));
}

TEST(OutsideGrid, AHoleWiderThanTheBandFloodsTheInside) {
  const std::vector<float> points = sphere(20000, 0.8f);  // a cap of radius 0.6 cut off
  const OutsideGrid grid(points.data(), points.size() / 3, 0.05f, 1);
  EXPECT_EQ(grid.enclosedCells(), 0u);
  const float centre[3] = {0, 0, 0};
  EXPECT_TRUE(grid.outside(centre));
  EXPECT_FALSE(grid.enclosed(centre));
}

TEST(OutsideGrid, SparseSamplingLeaksWithoutDilationAndClosesWithIt) {
  const std::vector<float> points = sphere(3000);  // about 0.065 apart
  const OutsideGrid fine(points.data(), points.size() / 3, 0.03f, 0);
  EXPECT_EQ(fine.enclosedCells(), 0u);
  const OutsideGrid dilated(points.data(), points.size() / 3, 0.03f, 3);
  EXPECT_GT(dilated.enclosedCells(), 0u);
}

TEST(OutsideGrid, APlaneEnclosesNothing) {
  std::vector<float> points;
  for (int i = 0; i < 100; ++i)
    for (int j = 0; j < 100; ++j) points.insert(points.end(), {0.01f * i, 0.01f * j, 0.f});
  const OutsideGrid grid(points.data(), points.size() / 3, 0.02f, 1);
  EXPECT_EQ(grid.enclosedCells(), 0u);
}

TEST(OutsideGrid, TheCellGrowsToRespectTheCellLimit) {
  const std::vector<float> points = sphere(2000);
  const OutsideGrid grid(points.data(), points.size() / 3, 0.001f, 1, 100000);
  EXPECT_GT(grid.cell(), 0.001f);
  const float extent = 2.f / grid.cell() + 6;  // the margin: dilation + 2 cells each side
  EXPECT_LE(extent * extent * extent, 100000.f * 1.1f);
}

TEST(OutsideGrid, BadArgumentsAreRefusedAndAnEmptyCloudIsAllOutside) {
  const std::vector<float> points = sphere(100);
  EXPECT_THROW(OutsideGrid(points.data(), 100, 0.f), std::invalid_argument);
  EXPECT_THROW(OutsideGrid(points.data(), 100, std::numeric_limits<float>::quiet_NaN()), std::invalid_argument);
  EXPECT_THROW(OutsideGrid(points.data(), 100, 0.1f, -1), std::invalid_argument);
  const OutsideGrid empty(nullptr, 0, 0.1f);
  const float origin[3] = {0, 0, 0};
  EXPECT_TRUE(empty.outside(origin));
  EXPECT_EQ(empty.enclosedCells(), 0u);
  std::vector<float> with_nan = points;
  with_nan[0] = std::numeric_limits<float>::infinity();
  EXPECT_NO_THROW(OutsideGrid(with_nan.data(), 100, 0.1f));
}

}  // namespace
