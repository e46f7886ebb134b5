#include "viewer/color_maps.h"

#include <algorithm>
#include <cmath>

namespace pcl_dise {
namespace viewer {

namespace {

std::uint8_t toByte(float v) { return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.f, 1.f) * 255.f)); }

float norm3(const float* v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

}  // namespace

Rgb normalColor(const float* normal) {
  const float length = norm3(normal);
  if (!std::isfinite(length) || length == 0.f) return kMissingColor;
  return {toByte(std::abs(normal[0]) / length), toByte(std::abs(normal[1]) / length),
          toByte(std::abs(normal[2]) / length)};
}

Rgb sequentialColor(float t) {
  if (std::isnan(t)) return kMissingColor;
  // Control points at t = 0, 1/3, 2/3, 1; linear in between.
  static constexpr float kStops[4][3] = {
      {0.05f, 0.05f, 0.45f}, {0.1f, 0.65f, 0.9f}, {0.95f, 0.9f, 0.2f}, {0.85f, 0.1f, 0.1f}};
  const float x = std::clamp(t, 0.f, 1.f) * 3.f;
  const int i = std::min(static_cast<int>(x), 2);
  const float f = x - float(i);
  float c[3];
  for (int d = 0; d < 3; ++d) c[d] = kStops[i][d] + f * (kStops[i + 1][d] - kStops[i][d]);
  return {toByte(c[0]), toByte(c[1]), toByte(c[2])};
}

Rgb errorColor(float degrees, float max_degrees) { return sequentialColor(degrees / max_degrees); }

Rgb curvatureColor(float curvature, float max_curvature) { return sequentialColor(curvature / max_curvature); }

Rgb weightColor(float weight, float max_weight) {
  return max_weight > 0.f ? sequentialColor(weight / max_weight) : kMissingColor;
}

}  // namespace viewer
}  // namespace pcl_dise
