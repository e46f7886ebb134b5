// The grid search (grid_search.h) against a brute-force search: the same lists in the same order
// (by squared distance, ties by index) on clouds that stress the grid: surfaces, volumes, dense
// clusters among sparse points, coincident points, flat clouds, fewer points than k, queries far
// outside the cloud.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "pcl_dise/core/grid_search.h"

namespace {

using pcl_dise::GridSearch;
using pcl_dise::Neighborhoods;

float dist2(const float* a, const float* b) {
  const float ex = b[0] - a[0], ey = b[1] - a[1], ez = b[2] - a[2];
  return ex * ex + ey * ey + ez * ez;
}

// Indices of points sorted by (squared distance to query, index), those with d2 < limit2 only.
std::vector<std::int32_t> bruteForce(const std::vector<float>& points, const float* query, std::size_t count,
                                     float limit2 = std::numeric_limits<float>::infinity()) {
  std::vector<std::pair<float, std::int32_t>> all;
  for (std::size_t i = 0; i < points.size() / 3; ++i) {
    const float d = dist2(query, points.data() + 3 * i);
    if (d < limit2) all.push_back({d, static_cast<std::int32_t>(i)});
  }
  std::sort(all.begin(), all.end());
  std::vector<std::int32_t> ids;
  for (std::size_t j = 0; j < std::min(count, all.size()); ++j) ids.push_back(all[j].second);
  return ids;
}

std::vector<std::int32_t> row(const Neighborhoods& n, std::size_t i) {
  return std::vector<std::int32_t>(n.begin(i), n.begin(i) + n.size(i));
}

std::vector<float> sphereSurface(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g;
  std::vector<float> p(3 * n);
  for (std::size_t i = 0; i < n; ++i) {
    float v[3] = {g(rng), g(rng), g(rng)};
    const float r = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int c = 0; c < 3; ++c) p[3 * i + c] = 10.f * v[c] / r + 3.f;
  }
  return p;
}

// A dense cluster and its duplicates inside a sparse volume: density varies by 10^4.
std::vector<float> clusteredVolume(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-50.f, 50.f), tight(-0.05f, 0.05f);
  std::vector<float> p;
  for (std::size_t i = 0; i < n; ++i) {
    const bool dense = i % 3 == 0;
    for (int c = 0; c < 3; ++c) p.push_back(dense ? tight(rng) : u(rng));
  }
  for (std::size_t i = 0; i < 30; ++i) p.insert(p.end(), p.begin(), p.begin() + 3);  // coincident points
  return p;
}

// A flat square: one axis has no extent.
std::vector<float> flatSquare(std::size_t side) {
  std::vector<float> p;
  for (std::size_t i = 0; i < side; ++i)
    for (std::size_t j = 0; j < side; ++j) p.insert(p.end(), {0.5f * i, 0.5f * j, 7.f});
  return p;
}

void expectSameNearest(const std::vector<float>& points, std::size_t k, const std::vector<float>& queries) {
  const GridSearch grid = GridSearch::forNearest(points.data(), points.size() / 3, k);
  const Neighborhoods n = grid.nearest(queries.data(), queries.size() / 3, k, 2);
  ASSERT_EQ(n.numNodes(), queries.size() / 3);
  std::vector<std::int32_t> ids;
  std::vector<float> d2;
  for (std::size_t q = 0; q < queries.size() / 3; ++q) {
    const std::vector<std::int32_t> expected = bruteForce(points, queries.data() + 3 * q, k);
    ASSERT_EQ(row(n, q), expected) << "query " << q << ", k = " << k;
    grid.nearest(queries.data() + 3 * q, k, ids, d2);
    ASSERT_EQ(ids, expected) << "single query " << q;
    for (std::size_t j = 0; j < ids.size(); ++j)
      EXPECT_EQ(d2[j], dist2(queries.data() + 3 * q, points.data() + 3 * std::size_t(ids[j])));
  }
}

TEST(GridSearch, NearestEqualsBruteForceOnEveryPoint) {
  for (std::size_t k : {1, 17, 65}) {
    const std::vector<float> sphere = sphereSurface(3000, 1);
    expectSameNearest(sphere, k, sphere);
    const std::vector<float> clusters = clusteredVolume(2000, 2);
    expectSameNearest(clusters, k, clusters);
    const std::vector<float> flat = flatSquare(40);
    expectSameNearest(flat, k, flat);  // a regular grid: many ties, broken by index
  }
}

TEST(GridSearch, NearestForOtherQueries) {
  const std::vector<float> sphere = sphereSurface(2000, 3);
  std::vector<float> queries = sphereSurface(300, 4);
  for (float& c : queries) c *= 1.05f;  // near the surface, off the points
  queries.insert(queries.end(), {1e4f, -2e4f, 5.f, 3.f, 3.f, 3.f, -100.f, 3.f, 3.f});  // far outside, the centre
  expectSameNearest(sphere, 30, queries);
}

TEST(GridSearch, AFewQueriesOverALargeCloud) {
  // Queries far fewer than the grid's cells are grouped by sorting, not by a pass over the cells.
  const std::vector<float> sphere = sphereSurface(40000, 5);
  std::vector<float> queries(sphere.begin(), sphere.begin() + 3 * 40);
  queries.insert(queries.end(), {std::nanf(""), 0.f, 0.f, 3.f, 3.f, 3.f});  // a non-finite query, the centre
  expectSameNearest(sphere, 17, queries);
  const GridSearch grid = GridSearch::forRadius(sphere.data(), 40000, 0.5f);
  const Neighborhoods rows = grid.withinRadius(queries.data(), queries.size() / 3, 0.5f, 0, 2);
  for (std::size_t q = 0; q < queries.size() / 3; ++q)
    ASSERT_EQ(row(rows, q),
              q == 40 ? std::vector<std::int32_t>{} : bruteForce(sphere, queries.data() + 3 * q, 40000, 0.25f))
        << "query " << q;
}

// visitNearest hands over nearest()'s lists, each finite query's once, also where crowded cells
// answer from their own grids and coincident queries share an answer.
TEST(GridSearch, VisitedListsAreNearestsLists) {
  std::vector<float> points = sphereSurface(3000, 21);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> jitter(-1e-5f, 1e-5f);
  for (int i = 0; i < 6000; ++i) {
    const float d = i % 4 ? jitter(rng) : 0.f;
    points.insert(points.end(), {0.3f + d, -0.2f + (i % 3 ? d : 0.f), 0.1f});
  }
  std::vector<float> queries = points;
  queries.insert(queries.end(), {std::nanf(""), 1.f, 1.f});
  const std::size_t n = points.size() / 3, num_queries = queries.size() / 3;
  for (std::size_t k : {17, 65}) {
    const GridSearch grid = GridSearch::forNearest(points.data(), n, k);
    ASSERT_GE(grid.nestedCells(), 1u);
    const Neighborhoods rows = grid.nearest(queries.data(), num_queries, k, 2);
    std::vector<std::vector<std::int32_t>> visited(num_queries);
    std::vector<int> visits(num_queries, 0);
    grid.visitNearest(
        queries.data(), num_queries, k,
        [&](std::int32_t q, const std::int32_t* ids, std::size_t count) {
          visited[q].assign(ids, ids + count);  // each query from one thread only
          ++visits[q];
        },
        2);
    for (std::size_t q = 0; q < num_queries; ++q) {
      ASSERT_EQ(visits[q], q + 1 < num_queries ? 1 : 0) << "query " << q;
      ASSERT_EQ(visited[q], row(rows, q)) << "query " << q << ", k " << k;
    }
  }
}

// visitOwnNearestPositions hands over, for every indexed point, the positions of nearest()'s
// list: on a regular lattice (ties everywhere, broken by index), a sphere, and clouds too small for
// k; it declines grids with coincident points or crowded cells.
TEST(GridSearch, OwnPointsVisitedAsTheirNeighboursPositions) {
  std::vector<float> lattice = flatSquare(40);
  for (std::size_t i = 0; i < 400; ++i) lattice.insert(lattice.end(), {0.25f * (i % 20), 0.25f * (i / 20), 9.f});
  for (const std::vector<float>& points : {lattice, sphereSurface(2500, 31), flatSquare(3)}) {
    const std::size_t n = points.size() / 3;
    for (std::size_t k : {1, 17, 65}) {
      const GridSearch grid = GridSearch::forNearest(points.data(), n, k);
      const std::size_t per_point = std::min(k, n);
      std::map<std::array<float, 3>, std::size_t> index_of;  // a point by its position (each one point's)
      for (std::size_t i = 0; i < n; ++i) index_of[{points[3 * i], points[3 * i + 1], points[3 * i + 2]}] = i;
      auto indexOf = [&](const float* p) {
        const auto found = index_of.find({p[0], p[1], p[2]});
        return found == index_of.end() ? n : found->second;
      };
      std::vector<std::vector<float>> visited(n);
      std::vector<int> visits(n, 0);
      auto visit = [&](const float* p, const float* rows, std::size_t count) {
        const std::size_t i = indexOf(p);
        ASSERT_LT(i, n);
        visited[i].assign(rows, rows + 3 * count);
#pragma omp atomic
        ++visits[i];
      };
      ASSERT_TRUE(grid.visitOwnNearestPositions(k, visit, 2));
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(visits[i], 1) << "point " << i;
        std::vector<float> expected;
        for (const std::int32_t j : bruteForce(points, points.data() + 3 * i, per_point))
          expected.insert(expected.end(), points.begin() + 3 * j, points.begin() + 3 * j + 3);
        ASSERT_EQ(visited[i], expected) << "point " << i << ", k " << k;
      }
    }
  }
  std::vector<float> coincident = sphereSurface(500, 32);
  coincident.insert(coincident.end(), coincident.begin(), coincident.begin() + 3);
  const GridSearch with_slots = GridSearch::forNearest(coincident.data(), coincident.size() / 3, 17);
  EXPECT_FALSE(with_slots.visitOwnNearestPositions(17, [](const float*, const float*, std::size_t) { FAIL(); }));
}

TEST(GridSearch, FewerPointsThanKAndEmptyClouds) {
  const std::vector<float> few = {0, 0, 0, 1, 0, 0, 0, 2, 0};
  expectSameNearest(few, 10, few);
  const GridSearch empty = GridSearch::forNearest(nullptr, 0, 8);
  const float q[3] = {0, 0, 0};
  const Neighborhoods n = empty.nearest(q, 1, 8);
  EXPECT_EQ(n.numNodes(), 1u);
  EXPECT_EQ(n.numEdges(), 0u);
  const std::vector<float> one = {4, 5, 6};
  expectSameNearest(one, 3, one);
}

TEST(GridSearch, WithinRadiusEqualsBruteForceWithCaps) {
  const std::vector<float> clouds[] = {sphereSurface(2500, 5), clusteredVolume(1500, 6), flatSquare(30)};
  for (const std::vector<float>& points : clouds)
    for (float radius : {0.5f, 1.5f, 4.f}) {
      const GridSearch grid = GridSearch::forRadius(points.data(), points.size() / 3, radius);
      const float limit2 = static_cast<float>(double(radius) * radius);
      for (std::size_t cap : {0, 10}) {
        const Neighborhoods n = grid.withinRadius(points.data(), points.size() / 3, radius, cap, 2);
        std::vector<std::int32_t> ids;
        std::vector<float> d2;
        for (std::size_t q = 0; q < points.size() / 3; q += 7) {
          const std::vector<std::int32_t> expected =
              bruteForce(points, points.data() + 3 * q, cap > 0 ? cap : points.size(), limit2);
          ASSERT_EQ(row(n, q), expected) << "query " << q << ", radius " << radius << ", cap " << cap;
          grid.withinRadius(points.data() + 3 * q, radius, cap, ids, d2);
          ASSERT_EQ(ids, expected);
        }
      }
    }
}

// A surface with coincident points: stacks of every size at some of its positions, one stack
// larger than any k, and a stack at the origin like an organized scan's invalid pixels (zeros),
// the stacked points spread through the cloud's order.
std::vector<float> stackedSurface() {
  std::vector<float> points = sphereSurface(1200, 9);
  std::mt19937 rng(4);
  std::vector<float> stacked;
  for (std::size_t i = 0; i < 40; ++i)
    for (std::size_t copy = 0; copy < 1 + i % 5; ++copy)
      stacked.insert(stacked.end(), &points[3 * i], &points[3 * i] + 3);
  for (std::size_t copy = 0; copy < 300; ++copy) stacked.insert(stacked.end(), &points[300], &points[300] + 3);
  for (std::size_t copy = 0; copy < 500; ++copy) stacked.insert(stacked.end(), {0.f, 0.f, 0.f});
  // Interleave: each stacked point goes to a random place among the others.
  for (std::size_t s = 0; s < stacked.size() / 3; ++s) {
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, points.size() / 3)(rng);
    points.insert(points.begin() + 3 * at, &stacked[3 * s], &stacked[3 * s] + 3);
  }
  return points;
}

TEST(GridSearch, CoincidentPointsEqualBruteForce) {
  const std::vector<float> points = stackedSurface();
  const std::size_t n = points.size() / 3;
  for (std::size_t k : {1, 8, 65, 400}) {
    const Neighborhoods graph = pcl_dise::nearestNeighborGraph(points.data(), n, k, 2);
    for (std::size_t q = 0; q < n; q += 5)
      ASSERT_EQ(row(graph, q), bruteForce(points, points.data() + 3 * q, k)) << "query " << q << ", k " << k;
  }
  for (float radius : {0.05f, 0.3f})
    for (std::size_t cap : {0, 10, 100}) {
      const GridSearch grid = GridSearch::forRadius(points.data(), n, radius);
      const float limit2 = static_cast<float>(double(radius) * radius);
      const Neighborhoods rows = grid.withinRadius(points.data(), n, radius, cap, 2);
      for (std::size_t q = 0; q < n; q += 5)
        ASSERT_EQ(row(rows, q), bruteForce(points, points.data() + 3 * q, cap > 0 ? cap : n, limit2))
            << "query " << q << ", radius " << radius << ", cap " << cap;
    }
}

TEST(GridSearch, NearCoincidentPointsEqualBruteForce) {
  // A sparse sphere with a blob of 6,000 points within 1e-5 of one position, some of them
  // exactly coincident: the blob's cell gets a grid of its own.
  std::vector<float> points = sphereSurface(3000, 13);
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> jitter(-1e-5f, 1e-5f);
  for (int i = 0; i < 6000; ++i) {
    const float d = i % 10 == 0 ? 0.f : jitter(rng);
    const std::size_t at = 3 * std::uniform_int_distribution<std::size_t>(0, points.size() / 3)(rng);
    points.insert(points.begin() + at, {0.3f + d, -0.2f + (i % 3 ? d : 0.f), 0.1f});
  }
  const std::size_t n = points.size() / 3;
  for (std::size_t k : {17, 65}) {
    const GridSearch grid = GridSearch::forNearest(points.data(), n, k);
    EXPECT_GE(grid.nestedCells(), 1u);
    const Neighborhoods graph = grid.nearest(points.data(), n, k, 2);
    for (std::size_t q = 0; q < n; q += 7)
      ASSERT_EQ(row(graph, q), bruteForce(points, points.data() + 3 * q, k)) << "query " << q << ", k " << k;
  }
  for (float radius : {2e-6f, 0.1f}) {
    const GridSearch grid = GridSearch::forRadius(points.data(), n, radius);
    const float limit2 = static_cast<float>(double(radius) * radius);
    const Neighborhoods rows = grid.withinRadius(points.data(), n, radius, 40, 2);
    for (std::size_t q = 0; q < n; q += 7)
      ASSERT_EQ(row(rows, q), bruteForce(points, points.data() + 3 * q, 40, limit2)) << "query " << q;
  }
}

TEST(GridSearch, EveryPointAtOnePosition) {
  const std::vector<float> points(3 * 2000, 1.5f);
  const GridSearch grid = GridSearch::forNearest(points.data(), 2000, 17);
  EXPECT_EQ(grid.size(), 2000u);
  const Neighborhoods graph = grid.nearest(points.data(), 2000, 17, 2);
  for (std::size_t q = 0; q < 2000; q += 97) {
    const std::vector<std::int32_t> first17 = bruteForce(points, points.data() + 3 * q, 17);
    ASSERT_EQ(row(graph, q), first17);
    EXPECT_EQ(first17.back(), 16);  // ties by index
  }
}

TEST(GridSearch, AGridBuiltForOneQueryAnswersTheOther) {
  // A k-NN grid answers radius queries and a radius grid k-NN queries, exactly, if slower.
  const std::vector<float> sphere = sphereSurface(1500, 7);
  const GridSearch knn_grid = GridSearch::forNearest(sphere.data(), 1500, 5);
  const GridSearch radius_grid = GridSearch::forRadius(sphere.data(), 1500, 0.2f);
  std::vector<std::int32_t> ids;
  std::vector<float> d2;
  for (std::size_t q = 0; q < 1500; q += 50) {
    knn_grid.withinRadius(sphere.data() + 3 * q, 3.f, 0, ids, d2);
    EXPECT_EQ(ids, bruteForce(sphere, sphere.data() + 3 * q, 1500, 9.f));
    radius_grid.nearest(sphere.data() + 3 * q, 200, ids, d2);
    EXPECT_EQ(ids, bruteForce(sphere, sphere.data() + 3 * q, 200));
  }
}

TEST(GridSearch, BadInput) {
  const std::vector<float> with_nan = {0, 0, 0, std::nanf(""), 1, 1};
  EXPECT_THROW(GridSearch::forNearest(with_nan.data(), 2, 4), std::invalid_argument);
  const std::vector<float> points = {0, 0, 0, 1, 1, 1};
  EXPECT_THROW(GridSearch::forRadius(points.data(), 2, 0.f), std::invalid_argument);
  EXPECT_THROW(GridSearch::forRadius(points.data(), 2, std::numeric_limits<float>::infinity()), std::invalid_argument);
  // A query with a non-finite coordinate gets an empty list, as PCL leaves NaN points without neighbours.
  const GridSearch grid = GridSearch::forNearest(points.data(), 2, 1);
  const float queries[] = {std::nanf(""), 0, 0, 0, 0, 0};
  const Neighborhoods n = grid.nearest(queries, 2, 1);
  EXPECT_EQ(n.size(0), 0);
  EXPECT_EQ(row(n, 1), std::vector<std::int32_t>{0});
}

}  // namespace
