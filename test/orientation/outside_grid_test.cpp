// OutsideGrid on clouds whose outside is known: a sampled sphere encloses its centre and leaves the
// space around it outside; a sphere with a cap cut off, or a plane, encloses nothing; bad arguments
// are refused; an empty cloud is all outside. Every cell of random shells with holes is checked
// against a brute-force band and flood fill.
#include <array>
#include <cmath>
#include <deque>
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

// Brute force on whole cells (cell 1, the points' lowest corner on a cell's corner, so that a
// point's cell is the integer part of its coordinates): the band is every cell within `dilation`
// (Chebyshev) of an occupied cell, the outside every other cell that a 6-connected walk over them
// reaches from the border of a box around the band.
struct Reference {
  static constexpr int kSize = 40;
  enum { kEmpty, kBand, kOutside };
  std::vector<int> cell = std::vector<int>(kSize * kSize * kSize, kEmpty);
  std::size_t band = 0, enclosed = 0;

  static int at(int x, int y, int z) { return (z * kSize + y) * kSize + x; }

  Reference(const std::vector<std::array<int, 3>>& occupied, int dilation) {
    for (const auto& o : occupied)
      for (int z = o[2] - dilation; z <= o[2] + dilation; ++z)
        for (int y = o[1] - dilation; y <= o[1] + dilation; ++y)
          for (int x = o[0] - dilation; x <= o[0] + dilation; ++x) cell[at(x, y, z)] = kBand;
    std::deque<std::array<int, 3>> queue;
    for (int z = 0; z < kSize; ++z)
      for (int y = 0; y < kSize; ++y)
        for (int x = 0; x < kSize; ++x)
          if (x == 0 || y == 0 || z == 0 || x == kSize - 1 || y == kSize - 1 || z == kSize - 1) {
            cell[at(x, y, z)] = kOutside;  // every occupied cell lies well inside the box
            queue.push_back({x, y, z});
          }
    while (!queue.empty()) {
      const auto [x, y, z] = queue.front();
      queue.pop_front();
      const std::array<int, 3> next[6] = {{x - 1, y, z}, {x + 1, y, z}, {x, y - 1, z},
                                          {x, y + 1, z}, {x, y, z - 1}, {x, y, z + 1}};
      for (const auto& q : next) {
        if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= kSize || q[1] >= kSize || q[2] >= kSize) continue;
        int& c = cell[at(q[0], q[1], q[2])];
        if (c != kEmpty) continue;
        c = kOutside;
        queue.push_back(q);
      }
    }
    for (const int c : cell) band += c == kBand, enclosed += c == kEmpty;
  }
};

TEST(OutsideGrid, EveryCellAgreesWithABruteForceFloodFill) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 12; ++trial) {
    const int dilation = trial % 4;
    // Hollow boxes (some with a hole punched through a face) and stray cells, 8 to 31 on each axis.
    std::vector<std::array<int, 3>> occupied = {{8, 8, 8}};  // the lowest corner: cell 8 on each axis
    std::uniform_int_distribution<int> corner(9, 22), side(3, 9), stray(9, 31);
    for (int box = 0; box < 3; ++box) {
      const int x0 = corner(random), y0 = corner(random), z0 = corner(random);
      const int nx = side(random), ny = side(random), nz = side(random);
      const bool hole = random() % 2;
      for (int z = z0; z <= z0 + nz; ++z)
        for (int y = y0; y <= y0 + ny; ++y)
          for (int x = x0; x <= x0 + nx; ++x) {
            const bool shell = x == x0 || y == y0 || z == z0 || x == x0 + nx || y == y0 + ny || z == z0 + nz;
            const bool punched = hole && z == z0 && std::abs(x - x0 - nx / 2) <= 1 && std::abs(y - y0 - ny / 2) <= 1;
            if (shell && !punched) occupied.push_back({x, y, z});
          }
    }
    for (int s = 0; s < 20; ++s) occupied.push_back({stray(random), stray(random), stray(random)});
    std::uniform_real_distribution<float> within(0.05f, 0.95f);
    std::vector<float> points = {8.f, 8.f, 8.f};  // on the corner of its cell
    for (std::size_t i = 1; i < occupied.size(); ++i)
      for (int a = 0; a < 3; ++a) points.push_back(float(occupied[i][a]) + within(random));
    const Reference reference(occupied, dilation);
    const OutsideGrid grid(points.data(), points.size() / 3, 1.f, dilation);
    ASSERT_EQ(grid.cell(), 1.f);
    EXPECT_EQ(grid.bandCells(), reference.band) << "trial " << trial;
    EXPECT_EQ(grid.enclosedCells(), reference.enclosed) << "trial " << trial;
    std::size_t disagree = 0;
    for (int z = 0; z < Reference::kSize; ++z)
      for (int y = 0; y < Reference::kSize; ++y)
        for (int x = 0; x < Reference::kSize; ++x) {
          const float centre[3] = {x + 0.5f, y + 0.5f, z + 0.5f};
          const int expected = reference.cell[Reference::at(x, y, z)];
          disagree += grid.outside(centre) != (expected == Reference::kOutside) ||
                      grid.enclosed(centre) != (expected == Reference::kEmpty);
        }
    EXPECT_EQ(disagree, 0u) << "trial " << trial << ", dilation " << dilation;
  }
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
