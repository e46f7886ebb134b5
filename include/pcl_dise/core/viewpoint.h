#pragma once
// The sign of a normal without consistent orientation: towards the viewpoint, by PCL's rule
// (pcl::flipNormalTowardsViewpoint), or up (+z) as aerial LiDAR wants it (PDAL's filters.normal
// `always_up`). The feature, the tiled path, the tools and the Python module all sign by these;
// an orientation's sign is normalSignOf (normal_settings.h).

namespace pcl_dise {

/** How a normal gets its sign where it is not oriented consistently. */
enum class NormalSign {
  kPlaneFit,          ///< the plane fit's own sign ("none")
  kTowardsViewpoint,  ///< facing the viewpoint ("viewpoint")
  kUp                 ///< facing +z ("up": aerial surveys, the sensor above)
};

/** \brief Flips a normal that points away from the viewpoint: where (viewpoint - p) · n < 0.
 *  \param[in] viewpoint x, y, z (3 floats), in the points' frame
 *  \param[in] p the point's x, y, z (3 floats)
 *  \param[in,out] normal the unit normal (3 floats), negated where it faces away */
inline void flipTowardsViewpoint(const float* viewpoint, const float* p, float* normal) {
  const float dx = viewpoint[0] - p[0], dy = viewpoint[1] - p[1], dz = viewpoint[2] - p[2];
  if (dx * normal[0] + dy * normal[1] + dz * normal[2] < 0)
    for (int c = 0; c < 3; ++c) normal[c] = -normal[c];
}

/** \brief Gives `normal` its sign by `sign`.
 *  \param[in] sign the rule
 *  \param[in] viewpoint x, y, z (3 floats), in the points' frame (used by kTowardsViewpoint)
 *  \param[in] p the point's x, y, z (3 floats)
 *  \param[in,out] normal the unit normal (3 floats); kUp negates it where nz < 0 (a horizontal
 *  normal, nz = 0, keeps its sign) */
inline void signNormal(NormalSign sign, const float* viewpoint, const float* p, float* normal) {
  if (sign == NormalSign::kTowardsViewpoint) {
    flipTowardsViewpoint(viewpoint, p, normal);
  } else if (sign == NormalSign::kUp && normal[2] < 0) {
    for (int c = 0; c < 3; ++c) normal[c] = -normal[c];
  }
}

}  // namespace pcl_dise
