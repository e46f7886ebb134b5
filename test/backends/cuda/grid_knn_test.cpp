// The GPU's grid k-NN query (src/backends/cuda/grid_knn.h), run on the CPU against brute force on clouds
// that stress the grid: volumes, surfaces, a flat and a collinear cloud, coincident points,
// fewer points than k, far outliers; and what DeviceEstimation computes from its rows (the tie
// order mapped back, the edge-scale terms) against the CPU's search and edge scale, bit for bit.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <random>
#include <tuple>

#include "grid_knn.h"
#include "pcl_dise/core/edge_scale.h"
#include "pcl_dise/core/neighbor_search.h"
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

TEST(GridKnn, LargeCoordinates) {
  // A survey left at its georeferenced place in floats (5e5, 5e6: a float's step there is 0.03 and
  // 0.5), where rounding moves points across cell faces most: the stopping rule's margin
  // (core/grid_margin.h, the CPU's) must keep every k-th neighbour.
  std::vector<float> points = randomCloud(1500, 9, 400.f, 300.f, 20.f);
  for (std::size_t i = 0; i < points.size(); i += 3) points[i] += 5e5f, points[i + 1] += 5e6f, points[i + 2] += 300.f;
  expectMatchesBruteForce(points, 17);
  expectMatchesBruteForce(points, 65);
  for (float scale : {5e4f, 5e6f})
    for (float size : {3.f, 300.f}) {
      std::vector<float> q = randomCloud(3000, 10, size, size, size * 0.05f);
      for (std::size_t i = 0; i < q.size(); i += 3) q[i] += scale, q[i + 1] -= scale * 0.7f, q[i + 2] += scale * 0.01f;
      SCOPED_TRACE(std::to_string(scale) + " " + std::to_string(size));
      expectMatchesBruteForce(q, 17);
    }
}

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

// Radius queries by the grid against brute force: the count, and the nearest `capacity` in order.
void expectRadiusMatchesBruteForce(const std::vector<float>& points, const std::vector<float>& queries, float radius,
                                   int capacity) {
  const std::size_t m = points.size() / 3;
  const HostGrid grid(points.data(), m);
  const float radius2 = static_cast<float>(double(radius) * double(radius));
  std::vector<std::int32_t> ids(std::max(capacity, 1));
  std::vector<float> dist2(std::max(capacity, 1));
  for (std::size_t q = 0; q < queries.size() / 3; ++q) {
    const float* query = queries.data() + 3 * q;
    std::vector<std::pair<float, std::int32_t>> brute;
    for (std::size_t j = 0; j < m; ++j) {
      const float d = squaredDistance(query, points.data() + 3 * j);
      if (d < radius2) brute.emplace_back(d, static_cast<std::int32_t>(j));
    }
    std::sort(brute.begin(), brute.end());
    const int count = withinRadiusInGrid(grid.view(), query, radius, radius2, capacity, ids.data(), dist2.data());
    ASSERT_EQ(count, static_cast<int>(brute.size())) << "query " << q;
    for (int j = 0; j < std::min(count, capacity); ++j) {
      EXPECT_EQ(ids[j], brute[j].second) << "query " << q << " rank " << j;
      EXPECT_EQ(dist2[j], brute[j].first) << "query " << q << " rank " << j;
    }
  }
}

TEST(GridKnn, RadiusQueries) {
  const std::vector<float> surface = pcl_dise::bench::wavySurface(3000, 8);
  expectRadiusMatchesBruteForce(surface, surface, 0.06f, 1024);  // every point, in order
  expectRadiusMatchesBruteForce(surface, surface, 0.1f, 16);     // the nearest 16
  expectRadiusMatchesBruteForce(surface, surface, 0.05f, 0);     // counts only
  // Queries beyond the grid's box, a radius larger than the cloud, a volume.
  const std::vector<float> outside = randomCloud(200, 9, 2.f, 2.f, 2.f);
  expectRadiusMatchesBruteForce(surface, outside, 0.3f, 64);
  expectRadiusMatchesBruteForce(randomCloud(500, 10, 1.f, 1.f, 1.f), randomCloud(100, 11, 1.f, 1.f, 1.f), 5.f, 600);
  // Far from the origin (georeferenced clouds before their offset): rounding of the query's cells.
  std::vector<float> far = randomCloud(800, 12, 1.f, 1.f, 0.01f);
  for (std::size_t i = 0; i < far.size(); i += 3) far[i] += 3000.f, far[i + 1] -= 5000.f;
  expectRadiusMatchesBruteForce(far, far, 0.08f, 256);
}

// Query points that are not in the grid (a query cloud apart from the surface), some far outside
// its box: the k nearest grid points by brute force.
TEST(GridKnn, QueriesBeyondTheGrid) {
  const std::vector<float> surface = pcl_dise::bench::wavySurface(2000, 13);
  const HostGrid grid(surface.data(), surface.size() / 3);
  const std::vector<float> queries = randomCloud(300, 14, 3.f, 3.f, 1.f);
  std::vector<std::int32_t> ids(33);
  std::vector<float> dist2(33), brute(surface.size() / 3);
  for (std::size_t q = 0; q < queries.size() / 3; ++q) {
    const float* query = queries.data() + 3 * q;
    ASSERT_EQ(nearestInGrid(grid.view(), query, 33, ids.data(), dist2.data()), 33);
    for (std::size_t j = 0; j < brute.size(); ++j) brute[j] = squaredDistance(query, surface.data() + 3 * j);
    std::sort(brute.begin(), brute.end());
    for (int j = 0; j < 33; ++j) EXPECT_EQ(dist2[j], brute[j]) << "query " << q << " rank " << j;
  }
}

TEST(GridKnn, RadiusTiesKeepTheSmallerIdFirst) {
  const std::vector<float> p{0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, 0, 3};
  const HostGrid grid(p.data(), 5);
  std::int32_t ids[4];
  float dist2[4];
  ASSERT_EQ(withinRadiusInGrid(grid.view(), p.data(), 1.5f, 2.25f, 4, ids, dist2), 4);
  EXPECT_EQ(ids[0], 0);
  EXPECT_EQ(ids[1], 1);
  EXPECT_EQ(ids[2], 2);
  EXPECT_EQ(ids[3], 3);
  ASSERT_EQ(withinRadiusInGrid(grid.view(), p.data(), 1.f, 1.f, 4, ids, dist2), 1);  // strictly closer
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

// DeviceEstimation's search with a tie order: the grid over the searched points listed in tie
// order, its ids (positions in that order) mapped back through it.
std::vector<std::int32_t> deviceRowsInTieOrder(const std::vector<float>& points, const std::vector<std::int32_t>& order,
                                               int k) {
  const std::size_t m = points.size() / 3;
  std::vector<float> listed(3 * m);
  for (std::size_t s = 0; s < m; ++s) std::copy_n(points.data() + 3 * std::size_t(order[s]), 3, listed.data() + 3 * s);
  const HostGrid grid(listed.data(), m);
  std::vector<std::int32_t> rows(m * std::size_t(k)), ids(k);
  std::vector<float> dist2(k);
  for (std::size_t i = 0; i < m; ++i) {
    const int found = nearestInGrid(grid.view(), points.data() + 3 * i, k, ids.data(), dist2.data());
    for (int j = 0; j < found; ++j) rows[i * k + j] = order[ids[j]];
  }
  return rows;
}

// A lattice (every distance exact, ties everywhere) with coincident copies of some of its points.
std::vector<float> latticeWithCopies() {
  std::vector<float> p;
  for (int z = 0; z < 3; ++z)
    for (int y = 0; y < 14; ++y)
      for (int x = 0; x < 14; ++x) p.insert(p.end(), {float(x), float(y), float(z)});
  for (std::size_t i = 0; i < 150; ++i)
    p.insert(p.end(), p.begin() + 3 * (7 * i % 588), p.begin() + 3 * (7 * i % 588) + 3);
  return p;
}

TEST(GridKnn, TieOrderGivesTheCpuSearchIndexForIndex) {
  const std::vector<float> points = latticeWithCopies();
  const std::size_t m = points.size() / 3;
  std::vector<std::int32_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(3));
  for (const bool shuffled : {false, true})
    for (const int k : {17, 65}) {
      SCOPED_TRACE("k " + std::to_string(k) + (shuffled ? ", shuffled tie order" : ", index order"));
      std::vector<std::int32_t> tie(m);
      if (shuffled)
        tie = order;
      else
        std::iota(tie.begin(), tie.end(), 0);
      pcl_dise::NeighborSearch search;
      search.k = static_cast<std::size_t>(k);
      search.tie_order = shuffled ? tie.data() : nullptr;
      const pcl_dise::Neighborhoods cpu = pcl_dise::searchNeighborhoods(points.data(), m, search, 1);
      const std::vector<std::int32_t> device = deviceRowsInTieOrder(points, tie, k);
      ASSERT_EQ(cpu.indices.size(), device.size());
      for (std::size_t e = 0; e < device.size(); ++e)
        ASSERT_EQ(device[e], cpu.indices[e]) << "point " << e / k << " rank " << e % k;
    }
}

TEST(GridKnn, EdgeScaleTermsOverGridRowsGiveTheCpuEdgeScaleBitForBit) {
  std::vector<float> points = pcl_dise::bench::wavySurface(5000, 21);
  points.insert(points.end(), points.begin(), points.begin() + 3 * 300);  // coincident copies
  const std::size_t m = points.size() / 3;
  const int row = static_cast<int>(pcl_dise::kEdgeScaleNeighbors);
  const HostGrid grid(points.data(), m);
  std::vector<double> terms(m);
  std::vector<std::int32_t> ids(row);
  std::vector<float> dist2(row);
  for (std::size_t i = 0; i < m; ++i) {
    ASSERT_EQ(nearestInGrid(grid.view(), points.data() + 3 * i, row, ids.data(), dist2.data()), row);
    terms[i] = pcl_dise::edgeScaleTerm(points.data(), points.data() + 3 * i, ids.data(), row);
  }
  const float device = pcl_dise::edgeScaleFromTerms(terms.data(), m, m * std::size_t(row));
  const float cpu = pcl_dise::edgeScale(points.data(), m, 1);
  std::uint32_t device_bits = 0, cpu_bits = 0;
  std::memcpy(&device_bits, &device, 4);
  std::memcpy(&cpu_bits, &cpu, 4);
  EXPECT_EQ(device_bits, cpu_bits) << device << " against " << cpu;
}

// Every `stride`-th point's k nearest by the grid are brute force's, index for index, in (squared
// distance, id) order: ties by the smaller id.
void expectBruteForcesOrder(const HostGrid& grid, const std::vector<float>& points, int k, std::size_t stride) {
  const std::size_t m = points.size() / 3;
  std::vector<std::int32_t> ids(k);
  std::vector<float> dist2(k);
  for (std::size_t i = 0; i < m; i += stride) {
    const float* q = points.data() + 3 * i;
    std::vector<std::pair<float, std::int32_t>> brute(m);
    for (std::size_t j = 0; j < m; ++j) brute[j] = {squaredDistance(q, points.data() + 3 * j), std::int32_t(j)};
    std::partial_sort(brute.begin(), brute.begin() + k, brute.end());
    ASSERT_EQ(nearestInGrid(grid.view(), q, k, ids.data(), dist2.data()), k);
    for (int j = 0; j < k; ++j) ASSERT_EQ(ids[j], brute[j].second) << "query " << i << " rank " << j << " k " << k;
  }
}

// Stacks of coincident points (zeros written for invalid pixels, duplicate returns): the k
// nearest, ties by the smaller id, exactly brute force's (d, id) order; radius counts and lists.
TEST(GridKnn, StacksOfCoincidentPointsGiveBruteForcesOrderIndexForIndex) {
  std::vector<float> points = pcl_dise::bench::wavySurface(1500, 24);
  const std::vector<float> on_surface(points.begin() + 3 * 700, points.begin() + 3 * 701);
  for (int i = 0; i < 2500; ++i) {  // interleaved, so that a stack's ids are not one block
    points.insert(points.end(), {0.f, 0.f, 0.f});
    if (i % 3 == 0) points.insert(points.end(), on_surface.begin(), on_surface.end());
  }
  points.insert(points.end(), {-0.f, 0.f, -0.f});  // -0 is the same position as +0
  const std::size_t m = points.size() / 3;
  const HostGrid grid(points.data(), m);
  for (const int k : {17, 65}) expectBruteForcesOrder(grid, points, k, 7);
  const std::vector<float> queries(points.begin(), points.begin() + 3 * 1500);
  expectRadiusMatchesBruteForce(points, queries, 0.05f, 40);  // stacks cut by the cap
  expectRadiusMatchesBruteForce(points, queries, 0.05f, 0);   // counts only
  expectRadiusMatchesBruteForce(points, {0.f, 0.f, 0.f, 0.01f, 0.f, 0.f}, 0.05f, 4000);
}

// Blobs of near-coincident points (within 1e-5 and 1e-3 of a point, far denser than the
// surface): their cells get grids of their own, and every answer stays brute force's, index
// for index.
TEST(GridKnn, CrowdedCellsGetNestedGridsAndTheSameAnswers) {
  std::vector<float> points = pcl_dise::bench::wavySurface(2000, 25);
  std::mt19937 rng(26);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (const auto& [centre, spread, count] : {std::tuple<int, float, int>{100, 1e-5f, 3000}, {900, 1e-3f, 2000}})
    for (int i = 0; i < count; ++i)
      for (int a = 0; a < 3; ++a) points.push_back(points[3 * centre + a] + spread * u(rng));
  for (int i = 0; i < 500; ++i) points.insert(points.end(), points.begin() + 3 * 2500, points.begin() + 3 * 2501);
  const std::size_t m = points.size() / 3;
  const HostGrid grid(points.data(), m);
  EXPECT_GE(grid.nested.size(), 2u);
  expectBruteForcesOrder(grid, points, 33, 5);
  std::vector<float> queries;
  for (std::size_t i = 0; i < m; i += 9)
    queries.insert(queries.end(), points.begin() + 3 * i, points.begin() + 3 * i + 3);
  expectRadiusMatchesBruteForce(points, queries, 2e-5f, 64);
  expectRadiusMatchesBruteForce(points, queries, 0.02f, 1024);
  expectRadiusMatchesBruteForce(points, queries, 0.05f, 0);
}

// A few points far away (a stray return kilometres off) must not stretch the cells over the
// whole box, which would put the surface in a handful of cells and make every query scan them.
TEST(GridKnn, FarOutliersKeepTheCellsSmall) {
  std::vector<float> points = pcl_dise::bench::wavySurface(20000, 22);
  for (float far : {1e5f, -3e5f, 8e5f}) points.insert(points.end(), {far, -far, 0.5f * far});
  const std::size_t m = points.size() / 3;
  const HostGrid grid(points.data(), m);
  std::int32_t fullest = 0;
  for (std::size_t c = 0; c + 1 < grid.cell_start.size(); ++c)
    fullest = std::max(fullest, grid.cell_start[c + 1] - grid.cell_start[c]);
  EXPECT_LE(fullest, 200);
  std::vector<float> small = pcl_dise::bench::wavySurface(2000, 23);
  for (float far : {1e5f, -3e5f, 8e5f}) small.insert(small.end(), {far, -far, 0.5f * far});
  expectMatchesBruteForce(small, 17);
}

}  // namespace
