#pragma once
// The error measure of docs/algorithm.md (section 7), written once for the evaluator, the viewer
// and the tests: the unoriented angle between an estimated and a true normal.
#include <algorithm>
#include <cmath>
#include <limits>

namespace pcl_dise {

/** Angle between the directions a and b (3 floats each) up to sign, in degrees:
 *  acos(min(1, |a . b| / (|a| |b|))), in double. NaN where either is zero or not finite. */
inline double unorientedAngleDegrees(const float* a, const float* b) {
  const double la = std::sqrt(double(a[0]) * a[0] + double(a[1]) * a[1] + double(a[2]) * a[2]);
  const double lb = std::sqrt(double(b[0]) * b[0] + double(b[1]) * b[1] + double(b[2]) * b[2]);
  const double c = std::fabs(double(a[0]) * b[0] + double(a[1]) * b[1] + double(a[2]) * b[2]) / (la * lb);
  if (!std::isfinite(c)) return std::numeric_limits<double>::quiet_NaN();
  return std::acos(std::min(1.0, c)) * (180.0 / 3.14159265358979323846);
}

/** The evaluation's error of one normal: unorientedAngleDegrees, 90 where the normal is missing
 *  (NaN or zero), as the PCPNet protocol counts it. */
inline double angleErrorDegrees(const float* normal, const float* truth) {
  const double angle = unorientedAngleDegrees(normal, truth);
  return std::isnan(angle) ? 90.0 : angle;
}

}  // namespace pcl_dise
