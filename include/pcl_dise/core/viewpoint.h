#pragma once
// The sign of a normal without consistent orientation: towards the viewpoint, by PCL's rule
// (pcl::flipNormalTowardsViewpoint). The feature, the tiled path and the Python module flip by it.

namespace pcl_dise {

/** \brief Flips a normal that points away from the viewpoint: where (viewpoint - p) · n < 0.
 *  \param[in] viewpoint x, y, z (3 floats), in the points' frame
 *  \param[in] p the point's x, y, z (3 floats)
 *  \param[in,out] normal the unit normal (3 floats), negated where it faces away */
inline void flipTowardsViewpoint(const float* viewpoint, const float* p, float* normal) {
  const float dx = viewpoint[0] - p[0], dy = viewpoint[1] - p[1], dz = viewpoint[2] - p[2];
  if (dx * normal[0] + dy * normal[1] + dz * normal[2] < 0)
    for (int c = 0; c < 3; ++c) normal[c] = -normal[c];
}

}  // namespace pcl_dise
