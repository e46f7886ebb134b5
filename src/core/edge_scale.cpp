#include "pcl_dise/core/edge_scale.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include <omp.h>

#include "pcl_dise/core/grid_search.h"
#include "pcl_dise/core/threads.h"

namespace pcl_dise {

double edgeScaleTerm(const float* points, const Neighborhoods& knn, std::size_t i) {
  return edgeScaleTerm(points, points + 3 * i, knn.begin(i), knn.size(i));
}

float edgeScaleFromSum(const ExactSum& terms, std::size_t entries) {
  const double values = static_cast<double>(entries) * 3.0;
  const double stddev = values > 0 ? std::sqrt(terms.value() / values) : 0.0;
  if (!(stddev > 0) || !std::isfinite(stddev)) return 1.f;
  return static_cast<float>(0.2 / stddev);
}

namespace {

// The sum of term(i) for i in 0 .. count - 1: each thread sums its share; exact sums give the
// same bits in any order and split.
template <typename Term>
ExactSum sumInThreads(std::size_t count, Term term) {
  ExactSum sum;
  const std::int64_t n = static_cast<std::int64_t>(count);
#pragma omp parallel if (n > 4096)
  {
    ExactSum mine;
#pragma omp for nowait
    for (std::int64_t i = 0; i < n; ++i) mine.add(term(static_cast<std::size_t>(i)));
#pragma omp critical
    sum.add(mine);
  }
  return sum;
}

// The edge scale over the first num_nodes rows of `rows`, each read in place up to its first
// max_per_node entries.
float edgeScaleOfRows(const float* points, const Neighborhoods& rows, std::size_t num_nodes, std::size_t max_per_node) {
  auto used = [&](std::size_t i) {
    return std::min<std::size_t>(static_cast<std::size_t>(rows.size(i)), max_per_node);
  };
  std::size_t entries = 0;
  for (std::size_t i = 0; i < num_nodes; ++i) entries += used(i);
  return edgeScaleFromSum(
      sumInThreads(num_nodes,
                   [&](std::size_t i) { return edgeScaleTerm(points, points + 3 * i, rows.begin(i), used(i)); }),
      entries);
}

}  // namespace

float edgeScaleFromTerms(const double* terms, std::size_t count, std::size_t entries) {
  return edgeScaleFromSum(sumInThreads(count, [&](std::size_t i) { return terms[i]; }), entries);
}

float edgeScale(const float* points, const Neighborhoods& knn) {
  return edgeScaleOfRows(points, knn, knn.numNodes(), std::numeric_limits<std::size_t>::max());
}

float edgeScale(const float* points, std::size_t num_points, int threads) {
  const GridSearch grid = GridSearch::forNearest(points, num_points, kEdgeScaleNeighbors, threads);
  return edgeScale(points, num_points, grid, nullptr, threads);
}

float edgeScale(const float* points, std::size_t num_points, const GridSearch& grid, const std::int32_t* grid_order,
                int threads) {
  // Each thread adds the terms of the points it searched while their neighbours are in cache.
  struct alignas(64) ThreadSum {
    ExactSum sum;
  };
  std::vector<ThreadSum> sums(static_cast<std::size_t>(detail::resolveThreads(threads)));
  // The neighbours' positions as the grid holds them (the same floats): rows 0 .. 16 of `rows`.
  static constexpr std::array<std::int32_t, kEdgeScaleNeighbors> kRows = [] {
    std::array<std::int32_t, kEdgeScaleNeighbors> rows{};
    for (std::size_t j = 0; j < rows.size(); ++j) rows[j] = static_cast<std::int32_t>(j);
    return rows;
  }();
  const bool visited = grid.visitOwnNearestPositions(
      kEdgeScaleNeighbors,
      [&](const float* p, const float* rows, std::size_t count) {
        sums[static_cast<std::size_t>(omp_get_thread_num())].sum.add(
            edgeScaleTerm(rows, p, kRows.data(), static_cast<std::int64_t>(count)));
      },
      threads);
  if (!visited)
    grid.visitNearest(
        points, num_points, kEdgeScaleNeighbors,
        [&](std::int32_t q, const std::int32_t* ids, std::size_t count) {
          std::int32_t in_points[kEdgeScaleNeighbors];
          if (grid_order)
            for (std::size_t j = 0; j < count; ++j) in_points[j] = grid_order[ids[j]];
          const double term = edgeScaleTerm(points, points + 3 * std::size_t(q), grid_order ? in_points : ids,
                                            static_cast<std::int64_t>(count));
          sums[static_cast<std::size_t>(omp_get_thread_num())].sum.add(term);
        },
        threads);
  ExactSum total;
  for (const ThreadSum& s : sums) total.add(s.sum);
  return edgeScaleFromSum(total, num_points * std::min(kEdgeScaleNeighbors, grid.size()));
}

float edgeScale(const float* points, std::size_t num_points, const Neighborhoods* nearest, int threads) {
  if (!nearest) return edgeScale(points, num_points, threads);
  return edgeScaleOfRows(points, *nearest, num_points, kEdgeScaleNeighbors);
}

std::vector<float> localEdgeScales(const float* points, const Neighborhoods& nearest, float fallback, int threads) {
  const std::int64_t m = static_cast<std::int64_t>(nearest.numNodes());
  auto used = [&](std::int64_t i) { return std::min<std::int64_t>(nearest.size(i), kEdgeScaleNeighbors); };
  std::vector<double> terms(static_cast<std::size_t>(m));
#pragma omp parallel for schedule(static) num_threads(detail::resolveThreads(threads)) if (m > 4096)
  for (std::int64_t i = 0; i < m; ++i) terms[i] = edgeScaleTerm(points, points + 3 * i, nearest.begin(i), used(i));
  if (std::isnan(fallback)) {
    std::size_t entries = 0;
    for (std::int64_t i = 0; i < m; ++i) entries += static_cast<std::size_t>(used(i));
    fallback =
        edgeScaleFromSum(sumInThreads(static_cast<std::size_t>(m), [&](std::size_t i) { return terms[i]; }), entries);
  }
  std::vector<float> scales(static_cast<std::size_t>(m));
#pragma omp parallel for schedule(static) num_threads(detail::resolveThreads(threads)) if (m > 4096)
  for (std::int64_t i = 0; i < m; ++i) {
    double sum = 0, entries = 0;
    const std::int32_t* row = nearest.begin(i);
    for (std::int64_t e = 0; e < used(i); ++e) {
      sum += terms[row[e]];
      entries += static_cast<double>(used(row[e]));
    }
    const double stddev = entries > 0 ? std::sqrt(sum / (3.0 * entries)) : 0.0;
    scales[i] = stddev > 0 && std::isfinite(stddev) ? static_cast<float>(0.2 / stddev) : fallback;
  }
  return scales;
}

std::vector<float> localEdgeScales(const float* points, std::size_t num_points, float fallback, int threads) {
  const GridSearch grid = GridSearch::forNearest(points, num_points, kEdgeScaleNeighbors, threads);
  return localEdgeScales(points, grid.nearest(points, num_points, kEdgeScaleNeighbors, threads), fallback, threads);
}

}  // namespace pcl_dise
