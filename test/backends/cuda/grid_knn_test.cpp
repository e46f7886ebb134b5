// The GPU's grid k-NN query (src/backends/cuda/grid_knn.h), run on the CPU against brute force on clouds
// that stress the grid: volumes, surfaces, a flat and a collinear cloud, coincident points,
// fewer points than k.
#include <gtest/gtest.h>

#include <numeric>
#include <random>

#include "grid_knn.h"
#include "wavy_surface.h"

namespace {

using namespace pcl_dise::cuda;

float squaredDistance(const float* a, const float* b) {
  const float ex = b[0] - a[0], ey = b[1] - a[1], ez = b[2] - a[2];
  return ex * ex + ey * ey + ez * ez;
}

// Every point's k nearest by the grid equal brute force's (distances, up to ties in the ids).
void expectMatchesBruteForce(const std::vector<float>& points, int k) {
  const std::size_t m = points.size() / 3;
  const HostGrid grid(points.data(), m);
  std::vector<std::int32_t> ids(k);
  std::vector<float> dist2(k), brute(m);
  for (std::size_t i = 0; i < m; ++i) {
    const float* q = points.data() + 3 * i;
    const int found = nearestInGrid(grid.view(), q, k, ids.data(), dist2.data());
    ASSERT_EQ(found, std::min<int>(k, static_cast<int>(m))) << "query " << i;
    for (std::size_t j = 0; j < m; ++j) brute[j] = squaredDistance(q, points.data() + 3 * j);
    std::sort(brute.begin(), brute.end());
    for (int j = 0; j < found; ++j) {
      EXPECT_EQ(dist2[j], squaredDistance(q, points.data() + 3 * std::size_t(ids[j]))) << "query " << i;
      EXPECT_NEAR(dist2[j], brute[j], 1e-6f * (1.f + brute[j])) << "query " << i << " rank " << j;
    }
    std::vector<std::int32_t> unique(ids.begin(), ids.begin() + found);
    std::sort(unique.begin(), unique.end());
    EXPECT_EQ(std::adjacent_find(unique.begin(), unique.end()), unique.end()) << "query " << i;
  }
}

std::vector<float> randomCloud(std::size_t m, unsigned seed, float sx, float sy, float sz) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> p(3 * m);
  for (std::size_t i = 0; i < m; ++i) p[3 * i] = sx * u(rng), p[3 * i + 1] = sy * u(rng), p[3 * i + 2] = sz * u(rng);
  return p;
}

TEST(GridKnn, Volume) { expectMatchesBruteForce(randomCloud(1500, 1, 1.f, 1.f, 1.f), 17); }

TEST(GridKnn, WavySurface) { expectMatchesBruteForce(pcl_dise::bench::wavySurface(2000, 2), 65); }

TEST(GridKnn, FlatAndCollinearClouds) {
  expectMatchesBruteForce(randomCloud(800, 3, 1.f, 0.5f, 0.f), 33);
  expectMatchesBruteForce(randomCloud(500, 4, 0.f, 0.f, 2.f), 9);
}

TEST(GridKnn, CoincidentPointsAndSmallClouds) {
  std::vector<float> p = randomCloud(300, 5, 1.f, 1.f, 1.f);
  p.insert(p.end(), p.begin(), p.begin() + 3 * 100);  // 100 duplicates
  expectMatchesBruteForce(p, 12);
  expectMatchesBruteForce(std::vector<float>(3 * 20, 0.5f), 8);    // all in one place
  expectMatchesBruteForce(randomCloud(10, 6, 1.f, 1.f, 1.f), 65);  // fewer points than k
  expectMatchesBruteForce(randomCloud(50, 7, 1.f, 1.f, 1.f), 1);
}

TEST(GridKnn, TiesKeepTheSmallerIdFirst) {
  const std::vector<float> p{0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0};  // three points at distance 1 from 0
  const HostGrid grid(p.data(), 4);
  std::int32_t ids[3];
  float dist2[3];
  ASSERT_EQ(nearestInGrid(grid.view(), p.data(), 3, ids, dist2), 3);
  EXPECT_EQ(ids[0], 0);
  EXPECT_EQ(ids[1], 1);
  EXPECT_EQ(ids[2], 2);
}

TEST(GridKnn, AboutOneCellPerPoint) {
  const std::vector<float> p = randomCloud(10000, 8, 2.f, 1.f, 0.5f);
  const GridShape shape = gridShapeFor(p.data(), 10000);
  EXPECT_LE(shape.numCells(), 10000);
  EXPECT_GE(shape.numCells(), 5000);
  EXPECT_LE(gridShapeFor(p.data(), 10000, 64).numCells(), 64);
  for (std::size_t i = 0; i < 10000; ++i) {
    const std::int64_t c = shape.cellOf(p.data() + 3 * i);
    ASSERT_GE(c, 0);
    ASSERT_LT(c, shape.numCells());
  }
}

}  // namespace
