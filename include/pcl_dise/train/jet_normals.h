#pragma once
// Jet-fitting normals (CGAL's jet_estimate_normals), the classical baseline of the PCPNet tables.
// Behind its own translation unit: CGAL's headers are slow to compile.
#include <array>
#include <vector>

namespace pcl_dise {
namespace train {

/** Normals of points (N x 3) by a degree-2 jet fitted to the k nearest points (the point itself
 *  included, as pcl::NormalEstimation::setKSearch(k) counts them). Returns N x 3 unit normals,
 *  unoriented; NaN where CGAL gives no finite normal. Throws std::invalid_argument for k < 6
 *  (a quadric needs 6 points) or fewer than k points. */
std::vector<std::array<float, 3>> jetNormals(const std::vector<std::array<float, 3>>& points, unsigned k);

}  // namespace train
}  // namespace pcl_dise
