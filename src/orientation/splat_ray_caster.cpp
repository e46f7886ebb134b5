#include "pcl_dise/orientation/splat_ray_caster.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "group_by_key.h"
#include "vector3.h"

namespace pcl_dise {
namespace {

using detail::dot;

// Below this |cos| between the ray and a disc's normal, the ray runs beside that sheet rather than
// through it, and the depth of a meeting would be unreliable: such discs are not met.
constexpr float kGrazing = 0.05f;

}  // namespace

SplatRayCaster::SplatRayCaster(const float* points, const float* normals, const float* radius, std::size_t num_points,
                               std::size_t max_cells) {
  float upper[3];
  for (int a = 0; a < 3; ++a) {
    lower_[a] = std::numeric_limits<float>::max();
    upper[a] = std::numeric_limits<float>::lowest();
  }
  for (std::size_t i = 0; i < num_points; ++i) {
    const float* p = points + 3 * i;
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2]) || !(radius[i] > 0.f) ||
        !std::isfinite(radius[i]))
      continue;
    xyz_.insert(xyz_.end(), p, p + 3);
    normal_.insert(normal_.end(), normals + 3 * i, normals + 3 * i + 3);
    radius_.push_back(radius[i]);
    for (int a = 0; a < 3; ++a) {
      lower_[a] = std::min(lower_[a], p[a]);
      upper[a] = std::max(upper[a], p[a]);
    }
  }
  const std::size_t n = radius_.size();
  if (n == 0) return;
  // A disc reaches at most half a cell from its centre, and rays are walked in half-cell steps, so
  // the 3×3×3 cells around each step hold every disc the ray can meet there.
  const float extent = std::max({upper[0] - lower_[0], upper[1] - lower_[1], upper[2] - lower_[2], 1e-30f});
  // Twice the radius that 90% of the discs stay within: the few widest (sparse outliers, far parts
  // of a scan) would otherwise make every cell hold thousands of discs.
  std::vector<float> sorted(radius_);
  const auto q90 = sorted.begin() + static_cast<std::ptrdiff_t>(9 * (n - 1) / 10);
  std::nth_element(sorted.begin(), q90, sorted.end());
  cell_ = std::max(2.f * *q90, extent * 1e-6f);
  auto cells = [&] {
    double count = 1;
    for (int a = 0; a < 3; ++a) count *= std::floor((upper[a] - lower_[a]) / cell_) + 1;
    return count;
  };
  while (cells() > double(std::max<std::size_t>(max_cells, 1))) cell_ *= 1.25f;
  for (int a = 0; a < 3; ++a) dims_[a] = static_cast<int>(std::floor((upper[a] - lower_[a]) / cell_)) + 1;
  for (float& r : radius_) r = std::min(r, 0.5f * cell_);

  std::vector<std::uint32_t> cell_of(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t c = 0;
    for (int a = 2; a >= 0; --a) {
      const int q = std::min(dims_[a] - 1, static_cast<int>((xyz_[3 * i + a] - lower_[a]) / cell_));
      c = c * dims_[a] + q;
    }
    cell_of[i] = static_cast<std::uint32_t>(c);
  }
  detail::groupByKey(cell_of, std::size_t(dims_[0]) * dims_[1] * dims_[2], cell_start_, cell_points_);
}

void SplatRayCaster::meet(std::size_t i, const float origin[3], const float direction[3], float start,
                          std::vector<float>& depths) const {
  const float* q = &xyz_[3 * i];
  const float* m = &normal_[3 * i];
  const float to[3] = {q[0] - origin[0], q[1] - origin[1], q[2] - origin[2]};
  const float cosine = dot(direction, m);
  if (std::abs(cosine) < kGrazing) return;
  const float depth = dot(to, m) / cosine;
  if (!(depth > start)) return;
  const float off[3] = {origin[0] + depth * direction[0] - q[0], origin[1] + depth * direction[1] - q[1],
                        origin[2] + depth * direction[2] - q[2]};
  if (dot(off, off) <= radius_[i] * radius_[i]) depths.push_back(depth);
}

int SplatRayCaster::sheets(std::vector<float>& depths, float merge) {
  std::sort(depths.begin(), depths.end());
  int count = 0;
  for (std::size_t h = 0; h < depths.size(); ++h) count += h == 0 || depths[h] - depths[h - 1] > merge;
  return count;
}

int SplatRayCaster::crossings(const float origin[3], const float direction[3], float start, float merge,
                              Scratch& scratch) const {
  scratch.depths.clear();
  if (radius_.empty()) return 0;
  if (scratch.seen.size() != radius_.size() || ++scratch.ray == 0) {
    scratch.seen.assign(radius_.size(), 0);
    scratch.ray = 1;
  }
  // The part of the ray inside the grid's box, grown by a cell (slabs).
  float enter = std::max(start, 0.f), leave = std::numeric_limits<float>::max();
  for (int a = 0; a < 3; ++a) {
    const float low = lower_[a] - cell_, high = lower_[a] + (dims_[a] + 1) * cell_;
    if (direction[a] == 0.f) {
      if (origin[a] < low || origin[a] > high) return 0;
      continue;
    }
    float t0 = (low - origin[a]) / direction[a], t1 = (high - origin[a]) / direction[a];
    if (t0 > t1) std::swap(t0, t1);
    enter = std::max(enter, t0);
    leave = std::min(leave, t1);
  }
  const float step = 0.5f * cell_;
  int last[3] = {-2, -2, -2};
  for (float t = enter; t <= leave + step; t += step) {
    int centre[3];
    for (int a = 0; a < 3; ++a)
      centre[a] = static_cast<int>(std::floor((origin[a] + t * direction[a] - lower_[a]) / cell_));
    if (centre[0] == last[0] && centre[1] == last[1] && centre[2] == last[2]) continue;
    std::copy(centre, centre + 3, last);
    for (int z = std::max(0, centre[2] - 1); z <= std::min(dims_[2] - 1, centre[2] + 1); ++z)
      for (int y = std::max(0, centre[1] - 1); y <= std::min(dims_[1] - 1, centre[1] + 1); ++y)
        for (int x = std::max(0, centre[0] - 1); x <= std::min(dims_[0] - 1, centre[0] + 1); ++x) {
          const std::size_t c = (std::size_t(z) * dims_[1] + y) * dims_[0] + x;
          for (std::uint32_t k = cell_start_[c]; k < cell_start_[c + 1]; ++k) {
            const std::uint32_t i = cell_points_[k];
            if (scratch.seen[i] == scratch.ray) continue;
            scratch.seen[i] = scratch.ray;
            meet(i, origin, direction, start, scratch.depths);
          }
        }
  }
  return sheets(scratch.depths, merge);
}

int SplatRayCaster::crossingsByTestingAll(const float origin[3], const float direction[3], float start,
                                          float merge) const {
  std::vector<float> depths;
  for (std::size_t i = 0; i < radius_.size(); ++i) meet(i, origin, direction, start, depths);
  return sheets(depths, merge);
}

}  // namespace pcl_dise
