#include "pcl_dise/core/distinct_positions.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace pcl_dise {

namespace {

// The bits of a coordinate, 0 and -0 alike (they compare equal as floats).
std::uint32_t bitsOf(float c) {
  if (c == 0.f) return 0;
  std::uint32_t bits;
  std::memcpy(&bits, &c, sizeof bits);
  return bits;
}

std::uint64_t hashOf(const float* p) {
  std::uint64_t h = 0x9E3779B97F4A7C15ull;
  for (int a = 0; a < 3; ++a) {
    h ^= bitsOf(p[a]);
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  return h;
}

}  // namespace

std::vector<std::int32_t> firstAtSamePosition(const float* xyz, std::size_t num_points, std::size_t stride_bytes) {
  if (num_points > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
    throw std::invalid_argument("firstAtSamePosition: more than 2^31 - 1 points");
  const auto* bytes = reinterpret_cast<const unsigned char*>(xyz);
  auto point = [&](std::size_t i) { return reinterpret_cast<const float*>(bytes + i * stride_bytes); };
  // Open addressing, at most half full: each slot holds the first point seen at a position.
  std::size_t slots = 2;
  while (slots < 2 * num_points) slots *= 2;
  std::vector<std::int32_t> table(slots, -1);
  std::vector<std::int32_t> first(num_points, -1);
  for (std::size_t i = 0; i < num_points; ++i) {
    const float* p = point(i);
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) continue;
    for (std::size_t s = hashOf(p) & (slots - 1);; s = (s + 1) & (slots - 1)) {
      if (table[s] < 0) {
        table[s] = first[i] = static_cast<std::int32_t>(i);
        break;
      }
      const float* q = point(static_cast<std::size_t>(table[s]));
      if (q[0] == p[0] && q[1] == p[1] && q[2] == p[2]) {
        first[i] = table[s];
        break;
      }
    }
  }
  return first;
}

}  // namespace pcl_dise
