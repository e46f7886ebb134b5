#pragma once
// The edge scale s of docs/algorithm.md: the statistic that makes the edge features independent
// of the cloud's units, over the whole cloud (the global rule) or over each point's neighbourhood
// (the local rule). Every backend, the feature and the trainer take it from here.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "pcl_dise/core/eigen3x3.h"  // PCL_DISE_HOST_DEVICE
#include "pcl_dise/core/exact_sum.h"
#include "pcl_dise/core/neighborhoods.h"

namespace pcl_dise {

/** s = 0.2 / stddev, stddev = sqrt(mean |p_j - p_i|^2 / 3) over every entry of `knn` (each
 *  point's 16 nearest neighbours plus itself, self entries counted). points: M x 3 row-major.
 *  Returns 1 where the statistic is zero or not finite (every point at one place). */
float edgeScale(const float* points, const Neighborhoods& knn);

/** The statistic in parts, for a cloud held in pieces (tiled_forward.h): point i's term is the
 *  sum of |p_j - p_i|^2 over its entries (in double). The terms of every point, added in any
 *  order and in any pieces to one ExactSum, give through edgeScaleFromSum (over `entries`
 *  entries in all) what edgeScale gives. */
double edgeScaleTerm(const float* points, const Neighborhoods& knn, std::size_t i);
float edgeScaleFromSum(const ExactSum& terms, std::size_t entries);

/** \brief One point's term on raw arrays (the CUDA backend's kernel calls it too): the sum of
 *  |p_j - p|^2 in double over `count` neighbours, each product and sum rounded as written (no
 *  fused multiply-add), so that every processor gives the same bits.
 *  \param[in] points the cloud, rows of 3 floats
 *  \param[in] p the point (3 floats)
 *  \param[in] neighbors `count` row indices into points */
PCL_DISE_HOST_DEVICE double edgeScaleTerm(const float* points, const float* p, const std::int32_t* neighbors,
                                          std::int64_t count) {
  double sum = 0.0;
  for (std::int64_t e = 0; e < count; ++e) {
    const float* q = points + 3 * static_cast<std::int64_t>(neighbors[e]);
    for (int c = 0; c < 3; ++c) {
      const double d = double(q[c]) - double(p[c]);
#if defined(__CUDA_ARCH__)
      sum = __dadd_rn(sum, __dmul_rn(d, d));
#else
      sum += d * d;
#endif
    }
  }
  return sum;
}

/** \brief s from terms computed elsewhere (the CUDA backend's, one per point), summed exactly
 *  in threads: what edgeScale gives on the same neighbourhoods.
 *  \param[in] terms `count` values of edgeScaleTerm
 *  \param[in] count the number of terms
 *  \param[in] entries the neighbours the terms read in all */
float edgeScaleFromTerms(const double* terms, std::size_t count, std::size_t entries);

/** The neighbours each point's term reads: its 16 nearest plus itself. */
constexpr std::size_t kEdgeScaleNeighbors = 17;

/** Whether exact k-nearest neighbourhoods of every point, k entries each with the point itself
 *  (nearest first), hold what the terms read: then they are handed to edgeScale as `nearest`. */
constexpr bool nearestHoldEdgeScale(std::size_t k_with_self) { return k_with_self >= kEdgeScaleNeighbors; }

/** The same, searching each point's 16 nearest neighbours itself (GridSearch, exact).
 *  points: num_points x 3 row-major, finite; threads <= 0: all hardware threads. */
float edgeScale(const float* points, std::size_t num_points, int threads = 0);

/** \brief s of the first num_points points of a cloud whose nearest neighbours may be known.
 *  \param[in] points at least num_points x 3, row-major, finite
 *  \param[in] num_points the points the statistic is over
 *  \param[in] nearest k-nearest neighbourhoods of (at least) those points, nearest first, each of
 *    min(17, num_points) or more entries: their first 17 are used; nullptr: searched here
 *  \param[in] threads OpenMP threads (<= 0: all) */
float edgeScale(const float* points, std::size_t num_points, const Neighborhoods* nearest, int threads);

class GridSearch;

/** \brief s of the points a k-nearest grid indexes, their 17 nearest found by it and summed as
 *  they are found (no neighbourhoods kept): what edgeScale(points, num_points, threads) gives.
 *  \param[in] points num_points x 3 row-major, finite: the grid's points in the caller's order
 *  \param[in] num_points the number of points the grid indexes
 *  \param[in] grid a GridSearch of those points (of any k)
 *  \param[in] grid_order the grid's point g is points[grid_order[g]] (nullptr: the same order)
 *  \param[in] threads OpenMP threads (<= 0: all) */
float edgeScale(const float* points, std::size_t num_points, const GridSearch& grid, const std::int32_t* grid_order,
                int threads);

/** \brief The local rule (docs/algorithm.md, section 3): each point's own s, the statistic of
 *  edgeScale over its 17 nearest and theirs. With t_j = edgeScaleTerm over point j's 17 nearest
 *  (c_j entries), s_i = 0.2 / sqrt(sum_j t_j / (3 sum_j c_j)), the sums over the 17 nearest j
 *  of point i (itself included): the global statistic restricted to the point's surroundings,
 *  so that it follows a spacing that grows with range and equals the global s on an even cloud.
 *  A point's s reads the positions two 17-nearest hops away and nothing else, so a tile or a
 *  receptive field holding those gets the whole cloud's value.
 *  \param[in] points the cloud, M x 3 row-major, finite
 *  \param[in] nearest each point's nearest neighbours, nearest first, itself first (M rows,
 *    indices into points): the first 17 of each row are read; a row with none gives the fallback
 *  \param[in] fallback s where a point's statistic is zero or not finite (its 17 nearest at one
 *    place); NaN: the global s of the same terms (edgeScaleFromSum over every row)
 *  \param[in] threads OpenMP threads (<= 0: all)
 *  \return M values, each finite and positive */
std::vector<float> localEdgeScales(const float* points, const Neighborhoods& nearest,
                                   float fallback = std::numeric_limits<float>::quiet_NaN(), int threads = 0);

/** \brief The same, searching each point's 17 nearest itself (GridSearch, exact, ties by index).
 *  \param[in] points num_points x 3 row-major, finite
 *  \param[in] num_points M
 *  \param[in] fallback as above
 *  \param[in] threads OpenMP threads (<= 0: all) */
std::vector<float> localEdgeScales(const float* points, std::size_t num_points,
                                   float fallback = std::numeric_limits<float>::quiet_NaN(), int threads = 0);

}  // namespace pcl_dise
