#pragma once
// The frame the tools compute in: a pcl::PointXYZ holds floats, whose step at UTM-sized
// coordinates (5e6 m) is 0.5 m, so large coordinates are read in double and moved near the origin
// by a whole-unit offset before they become floats. One rule for the in-memory and tiled paths.
#include <array>
#include <cmath>

namespace pcl_dise {
namespace io {

/** Coordinates of at least this magnitude (float's step there: about 1 mm) are read relative to an offset. */
constexpr double kOffsetFromMagnitude = 1e4;

/** The bounding box of the finite points added (lo = hi = 0 while none is). */
struct FiniteBounds {
  std::array<double, 3> lo{0, 0, 0};  ///< the smallest x, y, z
  std::array<double, 3> hi{0, 0, 0};  ///< the largest x, y, z
  bool any = false;                   ///< whether a finite point came
  /** \brief Adds p where it is finite. */
  void add(const std::array<double, 3>& p) {
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) return;
    for (int c = 0; c < 3; ++c) {
      // Plain comparisons (the values are finite): fmin / fmax are library calls here.
      lo[c] = any && lo[c] < p[c] ? lo[c] : p[c];
      hi[c] = any && hi[c] > p[c] ? hi[c] : p[c];
    }
    any = true;
  }
  /** \brief Takes in the points `other` bounds (a thread's share). */
  void merge(const FiniteBounds& other) {
    if (!other.any) return;
    add(other.lo);
    add(other.hi);
  }
};

/** The offset for finite points within [lo, hi] (per axis): the box's centre rounded to whole
 *  units where a coordinate reaches kOffsetFromMagnitude, zero otherwise (the floats are then the
 *  file's values). */
inline std::array<double, 3> localOffset(const std::array<double, 3>& lo, const std::array<double, 3>& hi) {
  double largest = 0;
  for (int c = 0; c < 3; ++c) largest = std::fmax(largest, std::fmax(std::fabs(lo[c]), std::fabs(hi[c])));
  if (!(largest >= kOffsetFromMagnitude)) return {0, 0, 0};
  return {std::round(0.5 * (lo[0] + hi[0])), std::round(0.5 * (lo[1] + hi[1])), std::round(0.5 * (lo[2] + hi[2]))};
}

/** A point in the frame: float(p - offset) per coordinate. The rounding to float is forced through
 *  memory: GCC 12 at -O3 vectorizes float(p - offset) - c into p - offset - c (no rounding to
 *  float in between, in some lanes) where the result is used at once, and the tiled path would
 *  then compute on other bits than the in-memory path, which stores its floats in a cloud.
 *  \param[in] p x, y, z in the file's coordinates
 *  \param[in] offset from localOffset
 *  \return x, y, z as the in-memory cloud holds them */
inline std::array<float, 3> localPoint(const std::array<double, 3>& p, const std::array<double, 3>& offset) {
  volatile float rounded[3] = {static_cast<float>(p[0] - offset[0]), static_cast<float>(p[1] - offset[1]),
                               static_cast<float>(p[2] - offset[2])};
  return {rounded[0], rounded[1], rounded[2]};
}

}  // namespace io
}  // namespace pcl_dise
