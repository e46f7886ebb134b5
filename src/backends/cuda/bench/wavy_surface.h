#pragma once
// The synthetic cloud of the CUDA tests and benchmark: m points of z = 0.2 sin(6x) cos(4y) over
// [-1, 1]^2, x and y uniform. Returns m x 3, row-major.
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

namespace pcl_dise {
namespace bench {

inline std::vector<float> wavySurface(std::size_t m, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  std::vector<float> points(3 * m);
  for (std::size_t i = 0; i < m; ++i) {
    const float x = uniform(rng), y = uniform(rng);
    points[3 * i] = x;
    points[3 * i + 1] = y;
    points[3 * i + 2] = 0.2f * std::sin(6 * x) * std::cos(4 * y);
  }
  return points;
}

}  // namespace bench
}  // namespace pcl_dise
