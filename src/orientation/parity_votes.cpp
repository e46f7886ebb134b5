// Ray parity: each patch's side by the parity of rays through discs in the tangent planes.
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

void tangentBasis(const float* n, float* t1, float* t2) {
  const float a[3] = {std::abs(n[0]) < 0.9f ? 1.f : 0.f, std::abs(n[0]) < 0.9f ? 0.f : 1.f, 0.f};
  t1[0] = a[1] * n[2] - a[2] * n[1];
  t1[1] = a[2] * n[0] - a[0] * n[2];
  t1[2] = a[0] * n[1] - a[1] * n[0];
  const float length = std::sqrt(dot(t1, t1));
  for (int k = 0; k < 3; ++k) t1[k] /= length;
  t2[0] = n[1] * t1[2] - n[2] * t1[1];
  t2[1] = n[2] * t1[0] - n[0] * t1[2];
  t2[2] = n[0] * t1[1] - n[1] * t1[0];
}

// +1 where point i's normal points out by the rays' parity, -1 where in, 0 where they cannot tell.
int parityVote(const FinitePoints& finite, const LocalScale& scale, const SplatRayCaster& caster, std::int32_t i,
               SplatRayCaster::Scratch& scratch) {
  const float skip = 0.5f * scale.spacing[i] + 3.f * scale.own_noise[i];
  const float* p = &finite.xyz[3 * i];
  const float* n = &finite.normal[3 * i];
  float t1[3], t2[3];
  tangentBasis(n, t1, t2);
  int says = 0;
  for (int r = 0; r < kRules.parity_directions; ++r) {
    const float azimuth = kRules.parity_azimuth + r * 6.2831853f / kRules.parity_directions;
    const float c = std::cos(azimuth) * kRules.parity_sine, d = std::sin(azimuth) * kRules.parity_sine;
    float ray[3];
    for (int a = 0; a < 3; ++a) ray[a] = kRules.parity_cosine * n[a] + c * t1[a] + d * t2[a];
    const int out = caster.crossings(p, ray, skip, skip, scratch);
    negate(ray);
    const int in = caster.crossings(p, ray, skip, skip, scratch);
    if ((out + in) % 2 == 1) says += out % 2 == 0 ? 1 : -1;
  }
  return (says > 0) - (says < 0);
}

// Whether patch p (members: its points) is left unsure by the grid's votes (step 7).
bool unsureOnGrid(const Neighborhoods& members, std::size_t p, const std::vector<signed char>& grid_vote) {
  std::int64_t clear = 0;
  for (std::int64_t k = members.offsets[p]; k < members.offsets[p + 1]; ++k)
    clear += std::abs(grid_vote[members.indices[k]]) == 2;
  return double(clear) < kRules.parity_unsure * double(members.size(p));
}

}  // namespace

void flipPatchesByParity(const VoteContext& context, const LocalScale& scale,
                         const std::vector<signed char>* grid_vote) {
  auto& [finite, graph, stride, part, user_seed, known_viewpoint, threads, report, sure] = context;
  const std::size_t m = finite.size();
  std::vector<float>* confidence = grid_vote ? &sure : nullptr;  // only beside a grid's votes
  std::vector<std::int32_t> patch = smoothPatches(finite, graph, stride, threads);
  Neighborhoods members;  // the points of each patch, by representative
  detail::groupByKey(patch, m, members.offsets, members.indices);

  std::vector<std::int32_t> voters, voters_patch;  // points sending rays, spread over each patch
  for (std::size_t p = 0; p < m; ++p) {
    const auto size = static_cast<std::int64_t>(members.size(p));
    if (size < kRules.parity_flips || (grid_vote && !unsureOnGrid(members, p, *grid_vote))) continue;
    const std::int64_t rays = std::min<std::int64_t>(size, kRules.parity_rays);
    for (std::int64_t r = 0; r < rays; ++r) {
      voters.push_back(members.indices[members.offsets[p] + (2 * r + 1) * size / (2 * rays)]);
      voters_patch.push_back(static_cast<std::int32_t>(p));
    }
  }
  if (grid_vote && voters.empty()) return;  // the grid left no patch unsure
  report.parity_checked = true;
  // Discs as wide as the median distance to the graph neighbours: about five cover each spot of a
  // surface sampled evenly, so that few rays slip between them.
  const SplatRayCaster caster(finite.xyz.data(), finite.normal.data(), scale.spacing.data(), m);
  std::vector<signed char> vote(voters.size());
  const auto count = static_cast<std::int64_t>(voters.size());
#pragma omp parallel num_threads(threads)
  {
    SplatRayCaster::Scratch scratch;
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t v = 0; v < count; ++v)
      vote[v] = static_cast<signed char>(parityVote(finite, scale, caster, voters[v], scratch));
  }
  if (2 * std::count_if(vote.begin(), vote.end(), [](signed char v) { return v != 0; }) < count) return;

  PatchVotes votes{std::move(patch), std::move(members), std::vector<std::int32_t>(m, 0),
                   std::vector<std::int32_t>(m, 0)};
  for (std::int64_t v = 0; v < count; ++v) (vote[v] < 0 ? votes.in : votes.out)[voters_patch[v]] += vote[v] != 0;
  report.parity_flipped =
      flipPatchesByVotes(finite, votes, part, user_seed, known_viewpoint, kRules.parity_flips, confidence);
}

}  // namespace detail
}  // namespace pcl_dise
