#pragma once
// Points stored more than once at the same position (a scan merged from overlapping passes, a
// cloud saved twice): DISE estimates each distinct position once, so that a neighbourhood holds k
// distinct positions and a twin never takes a neighbour's place (docs/algorithm.md, section 3).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pcl_dise {

/** \brief For every point, the first point (lowest index) at exactly its position.
 *  \param[in] xyz the first point's x; x, y, z are 3 consecutive floats of each point
 *  \param[in] num_points N (below 2^31)
 *  \param[in] stride_bytes bytes from one point's x to the next's (12 for packed rows of 3 floats,
 *    sizeof(PointT) for a pcl::PointCloud<PointT>)
 *  \return N entries: i where no earlier point shares point i's position, the earliest that does
 *    otherwise, -1 where a coordinate is not finite. Positions compare as floats (0 equals -0). */
std::vector<std::int32_t> firstAtSamePosition(const float* xyz, std::size_t num_points, std::size_t stride_bytes);

/** \brief Whether the points at a position stored `copies` times go without a normal, estimated
 *  one per position: where the copies alone fill a k-nearest neighbourhood of `neighbors` entries
 *  (k + 1; 0 for a radius search, where a lone position has no plane anyway). PCL's k + 1 nearest
 *  are then all at that position, which has no plane: an organized scan's invalid pixels stored as
 *  zeros get NaN, as pcl::NormalEstimation gives them. */
inline bool copiesFillTheNeighborhood(std::size_t copies, std::size_t neighbors) {
  return neighbors > 0 && copies >= neighbors;
}

}  // namespace pcl_dise
