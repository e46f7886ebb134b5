#include "pcl_dise/core/edge_scale.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "pcl_dise/core/grid_search.h"

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
  return edgeScale(points, nearestNeighborGraph(points, num_points, kEdgeScaleNeighbors, threads));
}

float edgeScale(const float* points, std::size_t num_points, const Neighborhoods* nearest, int threads) {
  if (!nearest) return edgeScale(points, num_points, threads);
  return edgeScaleOfRows(points, *nearest, num_points, kEdgeScaleNeighbors);
}

}  // namespace pcl_dise
