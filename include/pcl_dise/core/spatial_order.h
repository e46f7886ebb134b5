#pragma once
// A cache-friendly order to visit points in: points close in space come close in the order, so
// that neighbourhoods searched or computed one after another share their points' data in cache.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pcl_dise {

/** points: M x 3 row-major. Returns a permutation of 0..M-1 (M entries) sorting the points along a
 *  Morton (Z-order) curve over their bounding box, 21 bits per axis; points with a non-finite
 *  coordinate come last, in index order. Ties keep index order. */
std::vector<std::int32_t> mortonOrder(const float* points, std::size_t num_points);

}  // namespace pcl_dise
