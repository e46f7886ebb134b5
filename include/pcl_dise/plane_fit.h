#pragma once
// The weighted least-squares plane fit of docs/algorithm.md, shared by iteration 0 (unit weights,
// plain PCA) and every DISE iteration, on every backend.
#include "pcl_dise/eigen3x3.h"

namespace pcl_dise {

/** Fits a plane to `count` offsets d_e = p_e - center of a point's neighbours.
 *  offset(e, d) writes d_e (3, Scalar); weights: `count` weights, or nullptr for unit weights.
 *  Computes m = sum w d / sum w and C = sum w (d - m)(d - m)^T, then writes the unit normal
 *  (sign rule applied) and |lambda_min| / trace(C).
 *  Scalar is the precision of the sums and the eigensolve (double on the CPU: a nearly collinear
 *  neighbourhood needs it to match a double-precision fit).
 *  Returns false, leaving the outputs untouched, when C is zero or not finite (every point at
 *  the same place, or weights that sum to zero). */
template <typename Scalar, typename Offset>
PCL_DISE_HOST_DEVICE bool fitPlaneToOffsets(const Offset& offset, const float* weights, int count, float* normal,
                                            float* curvature) {
  Scalar sum_w = 0, mean[3] = {0, 0, 0}, d[3];
  for (int e = 0; e < count; ++e) {
    const Scalar w = weights ? Scalar(weights[e]) : Scalar(1);
    offset(e, d);
    sum_w += w;
    for (int c = 0; c < 3; ++c) mean[c] += w * d[c];
  }
  if (!(sum_w > Scalar(0))) return false;
  for (int c = 0; c < 3; ++c) mean[c] /= sum_w;
  SymMat3<Scalar> cov{0, 0, 0, 0, 0, 0};
  for (int e = 0; e < count; ++e) {
    const Scalar w = weights ? Scalar(weights[e]) : Scalar(1);
    offset(e, d);
    const Scalar centred[3] = {d[0] - mean[0], d[1] - mean[1], d[2] - mean[2]};
    addWeightedOuterProduct(cov, w, centred);
  }
  const Scalar trace = cov.a00 + cov.a11 + cov.a22;
  if (!(trace > Scalar(0)) || !(trace < Scalar(3.0e38))) return false;
  Scalar n[3], c;
  planeFromCovariance(cov, n, &c);
  for (int i = 0; i < 3; ++i) normal[i] = static_cast<float>(n[i]);
  *curvature = static_cast<float>(c);
  return true;
}

/** fitPlaneToOffsets over neighbours given by index: d_e = points[neighbors[e]] - center.
 *  points: node positions, M x 3 row-major; center: the point's own position (3). */
template <typename Scalar, typename Index>
struct NeighborOffsets {
  const float* points;
  const float* center;
  const Index* neighbors;
  PCL_DISE_HOST_DEVICE void operator()(int e, Scalar* d) const {
    const float* p = points + 3 * static_cast<long long>(neighbors[e]);
    for (int c = 0; c < 3; ++c) d[c] = Scalar(p[c]) - Scalar(center[c]);
  }
};

/** Fits a plane to the neighbourhood of a point: fitPlaneToOffsets with NeighborOffsets. */
template <typename Scalar, typename Index>
PCL_DISE_HOST_DEVICE bool fitPlane(const float* points, const float* center, const Index* neighbors,
                                   const float* weights, int count, float* normal, float* curvature) {
  return fitPlaneToOffsets<Scalar>(NeighborOffsets<Scalar, Index>{points, center, neighbors}, weights, count, normal,
                                   curvature);
}

}  // namespace pcl_dise
