#pragma once
// The edge scale s of docs/algorithm.md: one whole-cloud statistic that makes the edge features
// independent of the cloud's units. Every backend, the feature and the trainer take it from here.
#include <cstddef>

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

/** The same, searching each point's 16 nearest neighbours itself (GridSearch, exact).
 *  points: num_points x 3 row-major, finite; threads <= 0: all hardware threads. */
float edgeScale(const float* points, std::size_t num_points, int threads = 0);

}  // namespace pcl_dise
