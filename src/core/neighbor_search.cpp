#include "pcl_dise/core/neighbor_search.h"

#include <cmath>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "pcl_dise/core/grid_search.h"
#include "pcl_dise/core/threads.h"

namespace pcl_dise {

void checkSearch(const NeighborSearch& search, std::size_t num_points) {
  if (search.k == 0 && !(search.radius > 0 && std::isfinite(search.radius)))
    throw std::invalid_argument("neighbourhood search: set k or a positive radius");
  if (searchedCount(search, num_points) > num_points)
    throw std::invalid_argument("neighbourhood search: more points searched than given");
}

Neighborhoods searchNeighborhoods(const float* points, std::size_t num_points, const NeighborSearch& search,
                                  int threads) {
  checkSearch(search, num_points);
  const std::size_t searched = searchedCount(search, num_points);
  // The grid holds the searched points in tie order, so that it breaks ties in distance by that
  // order; its answers are renumbered back.
  std::vector<float> in_tie_order;
  const float* grid_points = points;
  if (search.tie_order) {
    in_tie_order.resize(3 * searched);
    for (std::size_t s = 0; s < searched; ++s)
      std::copy_n(points + 3 * std::size_t(search.tie_order[s]), 3, in_tie_order.begin() + 3 * s);
    grid_points = in_tie_order.data();
  }
  const GridSearch grid = search.k > 0 ? GridSearch::forNearest(grid_points, searched, search.k)
                                       : GridSearch::forRadius(grid_points, searched, search.radius);
  std::vector<float>().swap(in_tie_order);

  // Only some points asked: their positions gathered, their rows put back (every point asked
  // is the plain search).
  const bool some =
      search.queried && std::find(search.queried, search.queried + num_points, 0) != search.queried + num_points;
  std::vector<float> queries;
  std::vector<std::int32_t> queried;
  if (some)
    for (std::size_t n = 0; n < num_points; ++n)
      if (search.queried[n]) {
        queries.insert(queries.end(), points + 3 * n, points + 3 * n + 3);
        queried.push_back(static_cast<std::int32_t>(n));
      }
  const float* query_points = some ? queries.data() : points;
  const std::size_t num_queries = some ? queried.size() : num_points;
  Neighborhoods found =
      search.k > 0 ? grid.nearest(query_points, num_queries, search.k, threads)
                   : grid.withinRadius(query_points, num_queries, search.radius, search.max_neighbors, threads);
  if (search.tie_order) {
    std::int32_t* ids = found.indices.data();
    const std::int64_t num_ids = static_cast<std::int64_t>(found.indices.size());
#pragma omp parallel for num_threads(detail::resolveThreads(threads)) schedule(static)
    for (std::int64_t e = 0; e < num_ids; ++e) ids[e] = search.tie_order[ids[e]];
  }
  if (!some) return found;
  std::vector<std::vector<std::int32_t>> rows(num_points);
  for (std::size_t q = 0; q < queried.size(); ++q)
    rows[queried[q]].assign(found.begin(q), found.begin(q) + found.size(q));
  return Neighborhoods::fromRows(rows);
}

}  // namespace pcl_dise
