#include "pcl_dise/core/spatial_order.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace pcl_dise {

namespace {

// The 21 low bits of v spread to every third bit.
std::uint64_t spreadBits(std::uint64_t v) {
  v &= 0x1fffff;
  v = (v | v << 32) & 0x1f00000000ffffULL;
  v = (v | v << 16) & 0x1f0000ff0000ffULL;
  v = (v | v << 8) & 0x100f00f00f00f00fULL;
  v = (v | v << 4) & 0x10c30c30c30c30c3ULL;
  v = (v | v << 2) & 0x1249249249249249ULL;
  return v;
}

bool finitePoint(const float* p) { return std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]); }

}  // namespace

std::vector<std::int32_t> mortonOrder(const float* points, std::size_t num_points) {
  float lo[3], hi[3];
  for (int c = 0; c < 3; ++c) {
    lo[c] = std::numeric_limits<float>::max();
    hi[c] = std::numeric_limits<float>::lowest();
  }
  for (std::size_t i = 0; i < num_points; ++i) {
    const float* p = points + 3 * i;
    if (!finitePoint(p)) continue;
    for (int c = 0; c < 3; ++c) {
      lo[c] = std::min(lo[c], p[c]);
      hi[c] = std::max(hi[c], p[c]);
    }
  }
  // One scale for all axes keeps the cells cubes; computed in double so that huge coordinate
  // ranges cannot overflow.
  double extent = 0;
  for (int c = 0; c < 3; ++c) extent = std::max(extent, double(hi[c]) - double(lo[c]));
  const double scale = extent > 0 ? double((1 << 21) - 1) / extent : 0.0;

  constexpr std::uint64_t kNonFinite = std::numeric_limits<std::uint64_t>::max();
  std::vector<std::pair<std::uint64_t, std::int32_t>> keyed(num_points);
  for (std::size_t i = 0; i < num_points; ++i) {
    const float* p = points + 3 * i;
    std::uint64_t code = kNonFinite;
    if (finitePoint(p)) {
      code = 0;
      for (int c = 0; c < 3; ++c) code |= spreadBits(static_cast<std::uint64_t>((double(p[c]) - lo[c]) * scale)) << c;
    }
    keyed[i] = {code, static_cast<std::int32_t>(i)};
  }
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::int32_t> order(num_points);
  for (std::size_t i = 0; i < num_points; ++i) order[i] = keyed[i].second;
  return order;
}

}  // namespace pcl_dise
