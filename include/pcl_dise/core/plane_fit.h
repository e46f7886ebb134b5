#pragma once
// The weighted least-squares plane fit of docs/algorithm.md, shared by iteration 0 (unit weights,
// plain PCA) and every DISE iteration, on every backend.
#include "pcl_dise/core/eigen3x3.h"

namespace pcl_dise {

/** The sums of a weighted plane fit over `count` offsets d_e = p_e - center of a point's
 *  neighbours: sum_w = sum w, m = sum w d / sum w and cov = sum w (d - m)(d - m)^T, each summed
 *  in the order of e. offset(e, d) writes d_e (3, Scalar); weight(e, w) writes w_e (Scalar).
 *  Scalar is the precision of the sums, or a type of SIMD lanes with the arithmetic operators (a
 *  fit per lane; a lane whose neighbourhood is shorter than count gets w = 0 and d = 0 after it,
 *  which leave its sums as they are). */
template <typename Scalar, typename Offset, typename Weight>
PCL_DISE_HOST_DEVICE void weightedCovariance(const Offset& offset, const Weight& weight, int count, Scalar& sum_w,
                                             SymMat3<Scalar>& cov) {
  Scalar mean[3] = {Scalar{}, Scalar{}, Scalar{}}, d[3];
  sum_w = Scalar{};
  Scalar w;
  for (int e = 0; e < count; ++e) {
    weight(e, w);
    offset(e, d);
    sum_w += w;
    for (int c = 0; c < 3; ++c) mean[c] += w * d[c];
  }
  for (int c = 0; c < 3; ++c) mean[c] /= sum_w;
  cov = SymMat3<Scalar>{Scalar{}, Scalar{}, Scalar{}, Scalar{}, Scalar{}, Scalar{}};
  for (int e = 0; e < count; ++e) {
    weight(e, w);
    offset(e, d);
    const Scalar centred[3] = {d[0] - mean[0], d[1] - mean[1], d[2] - mean[2]};
    addWeightedOuterProduct(cov, w, centred);
  }
}

/** Whether a weighted fit's sums (weightedCovariance) make a plane: the weights sum to a positive
 *  number and cov is neither zero nor infinite (not every point at the same place). The one
 *  degenerate-fit rule of every backend, the CUDA kernel and the trainer. planeFromWeightedCovariance
 *  writes the unit normal (sign rule applied) and |lambda_min| / trace(cov) where it holds, and
 *  returns false, leaving the outputs untouched, where it does not. */
template <typename Scalar>
PCL_DISE_HOST_DEVICE bool fitHasPlane(Scalar sum_w, const SymMat3<Scalar>& cov) {
  const Scalar trace = cov.a00 + cov.a11 + cov.a22;
  return sum_w > Scalar(0) && trace > Scalar(0) && trace < Scalar(3.0e38);
}

/** Writes the plane of a weighted fit whose sums make one (fitHasPlane). */
template <typename Scalar>
PCL_DISE_HOST_DEVICE bool planeFromWeightedCovariance(Scalar sum_w, const SymMat3<Scalar>& cov, float* normal,
                                                      float* curvature) {
  if (!fitHasPlane(sum_w, cov)) return false;
  Scalar n[3], c;
  planeFromCovariance(cov, n, &c);
  for (int i = 0; i < 3; ++i) normal[i] = static_cast<float>(n[i]);
  *curvature = static_cast<float>(c);
  return true;
}

/** A point's weights for weightedCovariance: `weights` (count floats), or 1 where it is null. */
template <typename Scalar>
struct WeightsOrOne {
  const float* weights;  ///< count weights, or nullptr
  /** \brief w = the weight of entry e. */
  PCL_DISE_HOST_DEVICE void operator()(int e, Scalar& w) const { w = weights ? Scalar(weights[e]) : Scalar(1); }
};

/** Fits a plane to `count` offsets d_e = p_e - center of a point's neighbours (weightedCovariance,
 *  then planeFromWeightedCovariance). weights: `count` weights, or nullptr for unit weights.
 *  Scalar is double on the CPU: a nearly collinear neighbourhood needs it to match a
 *  double-precision fit. Returns false, leaving the outputs untouched, where the fit degenerates. */
template <typename Scalar, typename Offset>
PCL_DISE_HOST_DEVICE bool fitPlaneToOffsets(const Offset& offset, const float* weights, int count, float* normal,
                                            float* curvature) {
  Scalar sum_w;
  SymMat3<Scalar> cov;
  weightedCovariance<Scalar>(offset, WeightsOrOne<Scalar>{weights}, count, sum_w, cov);
  return planeFromWeightedCovariance(sum_w, cov, normal, curvature);
}

/** fitPlaneToOffsets over neighbours given by index: d_e = points[neighbors[e]] - center.
 *  points: node positions, M x 3 row-major; center: the point's own position (3). */
template <typename Scalar, typename Index>
struct NeighborOffsets {
  const float* points;     ///< M x 3
  const float* center;     ///< 3
  const Index* neighbors;  ///< the neighbourhood's indices into points
  /** \brief d = the offset of entry e from the center. */
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
