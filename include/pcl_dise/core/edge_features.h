#pragma once
// The per-edge inputs of a DISE iteration and the kernel's rotation (docs/algorithm.md steps 1 and 7),
// shared by the native and CUDA backends. Header-only, usable from CUDA device code.
#include <cmath>

#include "pcl_dise/core/eigen3x3.h"

namespace pcl_dise {

/** A cosine from the dot product of two vectors and the product of their norms: 0 where that
 *  product is (nearly) zero. */
PCL_DISE_HOST_DEVICE float cosineOrZero(float dot, float norms) { return norms < 1e-8f ? 0.f : dot / norms; }

// The functions below take T = float, or a type of SIMD lanes (one edge per lane) that has the
// arithmetic operators and whose sqrt and cosineOrZero argument-dependent lookup finds.

/** Cosine of the angle between a and b (3 each), 0 where either is (nearly) zero. */
template <typename T>
PCL_DISE_HOST_DEVICE T safeCosine(const T* a, const T* b) {
  using std::sqrt;
  const T na = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  const T nb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
  return cosineOrZero(a[0] * b[0] + a[1] * b[1] + a[2] * b[2], na * nb);
}

/** Edge features of edge i -> j: out (8) = [c (3), previous kernel weight, cos(n_i, c),
 *  cos(n_j, c), cos(n_i, n_j), |c|] with c = s (p_j - p_i). */
template <typename T>
PCL_DISE_HOST_DEVICE void edgeFeatures(const T* pi, const T* pj, const T* ni, const T* nj, T s, T previous_weight,
                                       T* out) {
  using std::sqrt;
  const T c[3] = {s * (pj[0] - pi[0]), s * (pj[1] - pi[1]), s * (pj[2] - pi[2])};
  out[0] = c[0];
  out[1] = c[1];
  out[2] = c[2];
  out[3] = previous_weight;
  out[4] = safeCosine(ni, c);
  out[5] = safeCosine(nj, c);
  out[6] = safeCosine(ni, nj);
  out[7] = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

/** Row-major rotation matrix r (3 x 3) of the quaternion q (4, normalised here). */
PCL_DISE_HOST_DEVICE void rotationFromQuaternion(const float* q, float (*r)[3]) {
  const float norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) + 1e-8f;
  const float x0 = q[0] / norm, x1 = q[1] / norm, x2 = q[2] / norm, x3 = q[3] / norm;
  r[0][0] = 1 - 2 * (x2 * x2 + x3 * x3);
  r[0][1] = 2 * (x1 * x2 - x0 * x3);
  r[0][2] = 2 * (x1 * x3 + x0 * x2);
  r[1][0] = 2 * (x1 * x2 + x0 * x3);
  r[1][1] = 1 - 2 * (x1 * x1 + x3 * x3);
  r[1][2] = 2 * (x2 * x3 - x0 * x1);
  r[2][0] = 2 * (x1 * x3 - x0 * x2);
  r[2][1] = 2 * (x2 * x3 + x0 * x1);
  r[2][2] = 1 - 2 * (x1 * x1 + x2 * x2);
}

}  // namespace pcl_dise
