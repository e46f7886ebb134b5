// Wall middles: under noise, each point's side from the middle of its wall.
#include "orientation_parts.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "group_by_key.h"
#include "pcl_dise/core/grid_search.h"
#include "pcl_dise/core/spatial_order.h"
#include "pcl_dise/core/threads.h"
#include "pcl_dise/orientation/outside_grid.h"
#include "pcl_dise/orientation/splat_ray_caster.h"
#include "vector3.h"

namespace pcl_dise {
namespace detail {

namespace {

// A point's vote for the side of its neighbourhood's centroid its normal points away from, and the
// kurtosis of the neighbours' offsets along its normal (3 where it has none).
struct WallMiddle {
  signed char vote = 0;
  float kurtosis = 3.f;
};

WallMiddle wallMiddle(const FinitePoints& finite, std::size_t i, const std::int32_t* ids, std::size_t size) {
  if (size == 0) return {};
  const float* p = &finite.xyz[3 * i];
  const float* n = &finite.normal[3 * i];
  double centroid[3] = {0., 0., 0.};
  for (std::size_t j = 0; j < size; ++j)
    for (int a = 0; a < 3; ++a) centroid[a] += finite.xyz[3 * std::size_t(ids[j]) + a];
  for (double& c : centroid) c /= double(size);
  auto offset = [&](const float* q) {
    return double(n[0]) * (q[0] - centroid[0]) + double(n[1]) * (q[1] - centroid[1]) +
           double(n[2]) * (q[2] - centroid[2]);
  };
  double m2 = 0., m4 = 0.;
  for (std::size_t j = 0; j < size; ++j) {
    const double o = offset(&finite.xyz[3 * std::size_t(ids[j])]);
    m2 += o * o;
    m4 += o * o * o * o;
  }
  const double along = offset(p);
  const int side = (along > 0.) - (along < 0.);
  return {static_cast<signed char>(2 * side), m2 > 0. ? float(m4 * double(size) / (m2 * m2)) : 3.f};
}

std::vector<WallMiddle> wallMiddles(const FinitePoints& finite, const KnownRows& known, const std::size_t* listed,
                                    std::size_t count, std::size_t k, std::optional<GridSearch>& search, int threads) {
  std::vector<WallMiddle> middles(count);
  for (std::size_t start = 0; start < count; start += kRules.mid_chunk) {
    const std::size_t chunk = std::min(kRules.mid_chunk, count - start);
    const Neighborhoods rows = nearestRows(finite, known, listed, start, chunk, k, search, threads);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t r = 0; r < static_cast<std::int64_t>(chunk); ++r) {
      const std::size_t q = start + std::size_t(r);
      middles[q] = wallMiddle(finite, listed ? listed[q] : q, rows.begin(std::size_t(r)),
                              static_cast<std::size_t>(rows.size(std::size_t(r))));
    }
  }
  return middles;
}

float medianKurtosis(const std::vector<WallMiddle>& middles) {
  std::vector<float> kurtosis(middles.size());
  for (std::size_t q = 0; q < middles.size(); ++q) kurtosis[q] = middles[q].kurtosis;
  return quantile(std::move(kurtosis), 0.5f);
}

}  // namespace

std::vector<signed char> wallMiddleVotes(const FinitePoints& finite, const KnownRows& known, int threads) {
  const std::size_t m = finite.size();
  const std::size_t k = std::min(kRules.mid_neighbors, m);
  std::optional<GridSearch> search;
  const std::size_t stride = (m + kRules.mid_sample - 1) / kRules.mid_sample;
  if (stride > 1) {
    std::vector<std::size_t> sample;
    for (std::size_t i = 0; i < m; i += stride) sample.push_back(i);
    const auto middles = wallMiddles(finite, known, sample.data(), sample.size(), k, search, threads);
    if (!(medianKurtosis(middles) < kRules.two_faces)) return {};
  }
  const auto middles = wallMiddles(finite, known, nullptr, m, k, search, threads);
  if (!(medianKurtosis(middles) < kRules.two_faces)) return {};
  std::vector<signed char> vote(m);
  for (std::size_t i = 0; i < m; ++i) vote[i] = middles[i].vote;
  return vote;
}

}  // namespace detail
}  // namespace pcl_dise
