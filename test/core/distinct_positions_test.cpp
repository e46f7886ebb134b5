// firstAtSamePosition (distinct_positions.h) against a brute-force reference: clouds with many
// repeated positions, 0 and -0, non-finite points, a stride wider than 3 floats.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "pcl_dise/core/distinct_positions.h"

using pcl_dise::firstAtSamePosition;

namespace {

// The reference: for each point, the first earlier point equal to it as floats.
std::vector<std::int32_t> bruteForce(const std::vector<float>& rows, std::size_t stride) {
  const std::size_t n = rows.size() / stride;
  std::vector<std::int32_t> first(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    const float* p = &rows[i * stride];
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2])) continue;
    for (std::size_t j = 0; j <= i; ++j) {
      const float* q = &rows[j * stride];
      if (q[0] == p[0] && q[1] == p[1] && q[2] == p[2]) {
        first[i] = static_cast<std::int32_t>(j);
        break;
      }
    }
  }
  return first;
}

}  // namespace

TEST(FirstAtSamePosition, MatchesBruteForceOnCloudsFullOfRepeats) {
  std::mt19937 rng(7);
  for (const std::size_t stride : {3u, 4u, 8u}) {
    // Coordinates from a handful of values, so that most positions repeat, some many times.
    std::uniform_int_distribution<int> value(-2, 2);
    std::vector<float> rows(700 * stride, 99.f);
    for (std::size_t i = 0; i < 700; ++i)
      for (int a = 0; a < 3; ++a) rows[i * stride + a] = 0.5f * static_cast<float>(value(rng));
    rows[5 * stride + 1] = std::numeric_limits<float>::quiet_NaN();
    rows[9 * stride + 2] = std::numeric_limits<float>::infinity();
    const std::vector<std::int32_t> got = firstAtSamePosition(rows.data(), 700, stride * sizeof(float));
    EXPECT_EQ(got, bruteForce(rows, stride)) << "stride " << stride;
    EXPECT_EQ(got[5], -1);
    EXPECT_EQ(got[9], -1);
  }
}

TEST(FirstAtSamePosition, DistinctPointsAreTheirOwnAndZeroEqualsMinusZero) {
  const std::vector<float> rows = {0.f, 1.f, 2.f, -0.f, 1.f, 2.f, 0.f, 1.f, 2.000001f, 1e-30f, 1.f, 2.f};
  EXPECT_EQ(firstAtSamePosition(rows.data(), 4, 3 * sizeof(float)), (std::vector<std::int32_t>{0, 0, 2, 3}));
  EXPECT_TRUE(firstAtSamePosition(rows.data(), 0, 3 * sizeof(float)).empty());
}
