#include "pcl_dise/core/neighbor_search.h"

#include <cmath>

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "pcl_dise/core/edge_scale.h"
#include "pcl_dise/core/grid_search.h"
#include "pcl_dise/core/threads.h"

namespace pcl_dise {

void checkSearch(const NeighborSearch& search, std::size_t num_points) {
  if (search.k == 0 && !(search.radius > 0 && std::isfinite(search.radius)))
    throw std::invalid_argument("neighbourhood search: set k or a positive radius");
  if (searchedCount(search, num_points) > num_points)
    throw std::invalid_argument("neighbourhood search: more points searched than given");
}

namespace {

// The grid over the searched points in tie order, so that it breaks ties in distance by that order
// (its answers are renumbered back).
GridSearch gridFor(const float* points, std::size_t num_points, const NeighborSearch& search, int threads) {
  checkSearch(search, num_points);
  const std::size_t searched = searchedCount(search, num_points);
  std::vector<float> in_tie_order;
  const float* grid_points = points;
  if (search.tie_order) {
    in_tie_order.resize(3 * searched);
    for (std::size_t s = 0; s < searched; ++s)
      std::copy_n(points + 3 * std::size_t(search.tie_order[s]), 3, in_tie_order.begin() + 3 * s);
    grid_points = in_tie_order.data();
  }
  return search.k > 0 ? GridSearch::forNearest(grid_points, searched, search.k, threads)
                      : GridSearch::forRadius(grid_points, searched, search.radius, threads);
}

}  // namespace

NeighborSearchIndex::NeighborSearchIndex(const float* points, std::size_t num_points, const NeighborSearch& search,
                                         int threads)
    : points_(points), num_points_(num_points), search_(search), grid_(gridFor(points, num_points, search, threads)) {
  search_.queried = nullptr;
}

Neighborhoods NeighborSearchIndex::rowsOf(const std::int32_t* nodes, std::size_t count, int threads,
                                          std::size_t nearest) const {
  if (nearest > 0 && search_.k == 0)
    throw std::invalid_argument("neighbourhood search: nearest neighbours from a radius index");
  std::vector<float> gathered;
  if (nodes) {
    gathered.resize(3 * count);
    for (std::size_t r = 0; r < count; ++r) {
      if (nodes[r] < 0 || std::size_t(nodes[r]) >= num_points_)
        throw std::invalid_argument("neighbourhood search: node " + std::to_string(nodes[r]) + " out of range");
      std::copy_n(points_ + 3 * std::size_t(nodes[r]), 3, gathered.begin() + 3 * r);
    }
  }
  const float* queries = nodes ? gathered.data() : points_;
  const std::size_t num_queries = nodes ? count : num_points_;
  const std::size_t k = nearest > 0 ? nearest : search_.k;
  Neighborhoods found = k > 0
                            ? grid_.nearest(queries, num_queries, k, threads)
                            : grid_.withinRadius(queries, num_queries, search_.radius, search_.max_neighbors, threads);
  if (search_.tie_order) {
    std::int32_t* ids = found.indices.data();
    const std::int64_t num_ids = static_cast<std::int64_t>(found.indices.size());
#pragma omp parallel for num_threads(detail::resolveThreads(threads)) schedule(static)
    for (std::int64_t e = 0; e < num_ids; ++e) ids[e] = search_.tie_order[ids[e]];
  }
  return found;
}

float NeighborSearchIndex::edgeScale(int threads) const {
  if (search_.k == 0) throw std::invalid_argument("neighbourhood search: nearest neighbours from a radius index");
  return pcl_dise::edgeScale(points_, searchedCount(search_, num_points_), grid_, search_.tie_order, threads);
}

Neighborhoods searchNeighborhoods(const float* points, std::size_t num_points, const NeighborSearch& search,
                                  int threads) {
  const NeighborSearchIndex index(points, num_points, search, threads);
  // Only some points asked: their rows put back (every point asked is the plain search).
  const bool some =
      search.queried && std::find(search.queried, search.queried + num_points, 0) != search.queried + num_points;
  if (!some) return index.rowsOf(nullptr, 0, threads);
  std::vector<std::int32_t> queried;
  for (std::size_t n = 0; n < num_points; ++n)
    if (search.queried[n]) queried.push_back(static_cast<std::int32_t>(n));
  const Neighborhoods found = index.rowsOf(queried.data(), queried.size(), threads);
  std::vector<std::vector<std::int32_t>> rows(num_points);
  for (std::size_t q = 0; q < queried.size(); ++q)
    rows[queried[q]].assign(found.begin(q), found.begin(q) + found.size(q));
  return Neighborhoods::fromRows(rows);
}

std::vector<float> searchLocalEdgeScales(const float* points, std::size_t num_points, const NeighborSearch& search,
                                         int threads) {
  NeighborSearch nearest;
  nearest.k = kEdgeScaleNeighbors;
  nearest.tie_order = search.tie_order;
  nearest.num_searched = search.num_searched;
  return localEdgeScales(points,
                         NeighborSearchIndex(points, num_points, nearest, threads).rowsOf(nullptr, num_points, threads),
                         std::numeric_limits<float>::quiet_NaN(), threads);
}

}  // namespace pcl_dise
