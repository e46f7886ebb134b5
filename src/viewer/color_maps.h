#pragma once
// Colour maps of dise_viewer: plain functions from values to 8-bit RGB, NaN-safe.
#include <cstdint>

namespace pcl_dise {
namespace viewer {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
  bool operator!=(const Rgb& o) const { return !(*this == o); }
};

/** Colour of points that have no value (NaN normal, no error, outside the picked neighbourhood). */
constexpr Rgb kMissingColor{110, 110, 110};

/** Unoriented normal n (3 floats) -> (|nx|, |ny|, |nz|) * 255 after normalising, so that n and -n
 *  look the same (DISE normals are unoriented up to the viewpoint flip). NaN or zero -> missing. */
Rgb normalColor(const float* normal);

/** Sequential map for t in [0, 1] (clamped): dark blue -> cyan -> yellow -> red, brightness
 *  increasing with t so that it also reads in grey. NaN -> missing. */
Rgb sequentialColor(float t);

/** Angle error in degrees on the sequential map, saturating at max_degrees. */
Rgb errorColor(float degrees, float max_degrees);

/** Curvature (|lambda_min| / trace, in [0, 1/3]) on the sequential map, saturating at max_curvature. */
Rgb curvatureColor(float curvature, float max_curvature);

/** A kernel weight relative to the largest weight of its neighbourhood (weight / max_weight). */
Rgb weightColor(float weight, float max_weight);

}  // namespace viewer
}  // namespace pcl_dise
