#pragma once
// The adaptive mode's rule (ForwardOptions::settle_degrees): a point whose normal turned by less
// than the settle angle in an iteration has settled and skips the remaining iterations. The native
// and CUDA backends both decide by these two functions.
#include <cmath>

#include "pcl_dise/core/eigen3x3.h"  // PCL_DISE_HOST_DEVICE

namespace pcl_dise {

/** \brief The cosine the rule compares with, for a settle angle.
 *  \param[in] settle_degrees the settle angle in degrees (> 0: the adaptive mode is on)
 *  \return cos(settle_degrees) in float */
inline float settleCosine(double settle_degrees) {
  return static_cast<float>(std::cos(settle_degrees * 3.14159265358979323846 / 180.0));
}

/** \brief Whether a point has settled: its normal turned by less than the settle angle, the sign
 *  aside (normals are unoriented between iterations).
 *  \param[in] normal this iteration's unit normal (3 floats)
 *  \param[in] previous the last iteration's unit normal (3 floats)
 *  \param[in] settle_cos settleCosine of the settle angle */
PCL_DISE_HOST_DEVICE bool hasSettled(const float* normal, const float* previous, float settle_cos) {
  return std::fabs(normal[0] * previous[0] + normal[1] * previous[1] + normal[2] * previous[2]) >= settle_cos;
}

}  // namespace pcl_dise
