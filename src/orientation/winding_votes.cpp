// The winding number: unsure points turned by that of the sure ones.
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

// The winding number's drop from p - d n to p + d n over the sure points in row (times 4 pi).
double windingDrop(const FinitePoints& finite, const LocalScale& scale, const std::vector<float>& sure, std::size_t i,
                   float d, const std::int32_t* row, std::size_t size) {
  const float* p = &finite.xyz[3 * i];
  const float* n = &finite.normal[3 * i];
  double drop = 0., weight = 0.;
  for (std::size_t k = 0; k < size; ++k) {
    const auto j = static_cast<std::size_t>(row[k]);
    if (j == i || sure[j] < kRules.low_confidence) continue;
    const float* q = &finite.xyz[3 * j];
    const float* n_j = &finite.normal[3 * j];
    const double area = double(scale.spacing[j]) * double(scale.spacing[j]);
    for (const double side : {-1., 1.}) {  // below, then above
      double r[3];
      for (int a = 0; a < 3; ++a) r[a] = double(q[a]) - (double(p[a]) + side * d * double(n[a]));
      const double length2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
      if (!(length2 > 0.)) continue;
      const double term =
          side * area * (r[0] * n_j[0] + r[1] * n_j[1] + r[2] * n_j[2]) / (length2 * std::sqrt(length2));
      drop -= term;
      weight += std::abs(term);
    }
  }
  return std::abs(drop) >= kRules.winding_clear * weight ? drop : 0.;
}

}  // namespace

std::size_t flipUnsureByWinding(FinitePoints& finite, const LocalScale& scale, const KnownRows& known,
                                std::int32_t user_seed, int threads, const std::vector<float>& sure) {
  const std::size_t m = finite.size();
  std::vector<std::size_t> unsure;
  for (std::size_t i = 0; i < m; ++i)
    if (sure[i] < kRules.low_confidence && std::int32_t(i) != user_seed) unsure.push_back(i);
  if (unsure.empty() || m < 2) return 0;
  const std::size_t width = std::min(kRules.winding_neighbors + 1, m);  // itself included
  std::vector<char> inward(unsure.size(), 0);
  std::optional<GridSearch> search;
  for (std::size_t start = 0; start < unsure.size(); start += kRules.mid_chunk) {
    const std::size_t chunk = std::min(kRules.mid_chunk, unsure.size() - start);
    const Neighborhoods rows = nearestRows(finite, known, unsure.data(), start, chunk, width, search, threads);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t r = 0; r < static_cast<std::int64_t>(chunk); ++r) {
      const std::size_t i = unsure[start + std::size_t(r)];
      const float d = kRules.winding_spacing * scale.spacing[i];
      inward[start + std::size_t(r)] = windingDrop(finite, scale, sure, i, d, rows.begin(std::size_t(r)),
                                                   static_cast<std::size_t>(rows.size(std::size_t(r)))) < 0.;
    }
  }
  std::size_t flipped = 0;
  for (std::size_t u = 0; u < unsure.size(); ++u) {
    if (!inward[u]) continue;
    negate(&finite.normal[3 * unsure[u]]);
    ++flipped;
  }
  return flipped;
}

}  // namespace detail
}  // namespace pcl_dise
