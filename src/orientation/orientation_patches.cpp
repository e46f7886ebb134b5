// Smooth patches, and how per-point votes turn them: the grid's and the wall middles' votes applied.
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

std::vector<std::int32_t> smoothPatches(const FinitePoints& finite, const Neighborhoods& graph, std::size_t stride,
                                        int threads) {
  const std::size_t m = finite.size();
  std::vector<char> joins(m * stride, 0);  // which graph edges lie within a patch: tested in parallel
  const auto count = static_cast<std::int64_t>(m);
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < count; ++i)
    for (std::size_t s = 0; s < stride; ++s) {
      const std::int32_t j = graph.indices[std::size_t(i) * stride + s];
      const float* n_i = &finite.normal[3 * i];
      const float* n_j = &finite.normal[3 * j];
      if (j == i || dot(n_i, n_j) < kRules.patch_parallel) continue;
      const float* p_i = &finite.xyz[3 * i];
      const float* p_j = &finite.xyz[3 * j];
      const float chord[3] = {p_j[0] - p_i[0], p_j[1] - p_i[1], p_j[2] - p_i[2]};
      const float length = std::sqrt(dot(chord, chord));
      joins[std::size_t(i) * stride + s] = std::abs(dot(chord, n_i)) <= kRules.patch_chord * length &&
                                           std::abs(dot(chord, n_j)) <= kRules.patch_chord * length;
    }
  DisjointSets sets(m);
  for (std::size_t e = 0; e < joins.size(); ++e)
    if (joins[e]) sets.join(static_cast<std::int32_t>(e / stride), graph.indices[e]);
  std::vector<std::int32_t> patch(m);
  for (std::size_t i = 0; i < m; ++i) patch[i] = sets.find(static_cast<std::int32_t>(i));
  return patch;
}

namespace {

// Whether a patch's votes are clear: three quarters of them one way.
bool clearVote(std::int32_t in, std::int32_t out) { return in + out > 0 && 4 * std::max(in, out) >= 3 * (in + out); }

// Per part (by representative), whether it is to face in. Outward, unless a seed point or a
// viewpoint chose a part's side (a room scanned from inside faces in): then the part faces as its
// seed's patch votes, or as most of its points vote.
std::vector<char> inwardParts(const PatchVotes& votes, const std::vector<std::int32_t>& part, std::int32_t user_seed,
                              bool known_viewpoint) {
  const std::size_t m = votes.patch.size();
  std::vector<double> inward_points(m, 0.0);
  const auto& in = votes.in;
  const auto& out = votes.out;
  if (user_seed >= 0 || known_viewpoint)
    for (std::size_t p = 0; p < m; ++p)
      if (in[p] + out[p] > 0)
        inward_points[part[p]] += double(votes.members.size(p)) * (in[p] - out[p]) / (in[p] + out[p]);
  const std::int32_t kept = user_seed >= 0 ? votes.patch[user_seed] : -1;
  if (kept >= 0 && in[kept] + out[kept] > 0) inward_points[part[kept]] = in[kept] - out[kept];
  std::vector<char> inward(m);
  for (std::size_t p = 0; p < m; ++p) inward[p] = inward_points[p] > 0.0;
  return inward;
}

}  // namespace

std::size_t flipPatchesByVotes(FinitePoints& finite, const PatchVotes& votes, const std::vector<std::int32_t>& part,
                               std::int32_t user_seed, bool known_viewpoint, std::int32_t min_votes,
                               std::vector<float>* confidence) {
  const std::size_t m = finite.size();
  const std::vector<char> inward = inwardParts(votes, part, user_seed, known_viewpoint);
  const std::int32_t kept = user_seed >= 0 ? votes.patch[user_seed] : -1;
  std::size_t flipped = 0;
  for (std::size_t p = 0; p < m; ++p) {
    const std::int32_t against = inward[part[p]] ? votes.out[p] : votes.in[p];
    if (std::int32_t(p) == kept || against < min_votes || 4 * against < 3 * (votes.in[p] + votes.out[p])) continue;
    const float margin = 0.5f * float(2 * against - votes.in[p] - votes.out[p]) / float(votes.in[p] + votes.out[p]);
    for (std::int64_t k = votes.members.offsets[p]; k < votes.members.offsets[p + 1]; ++k) {
      negate(&finite.normal[3 * votes.members.indices[k]]);
      if (confidence) (*confidence)[votes.members.indices[k]] = margin;
    }
    flipped += votes.members.size(p);
  }
  return flipped;
}

void orientByVotes(const VoteContext& context, const std::vector<signed char>& vote) {
  auto& [finite, graph, stride, part, user_seed, known_viewpoint, threads, report, confidence] = context;
  const std::size_t m = finite.size();

  std::vector<int> says(m, 0);   // each point's vote with its neighbours'
  std::vector<int> asked(m, 0);  // the neighbours whose votes count (aligned ones)
  const auto count = static_cast<std::int64_t>(m);
  std::int64_t silent = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : silent)
  for (std::int64_t i = 0; i < count; ++i) {
    for (std::size_t s = 0; s < stride; ++s) {
      const std::int32_t j = graph.indices[std::size_t(i) * stride + s];
      const float alignment = dot(&finite.normal[3 * i], &finite.normal[3 * j]);
      if (std::abs(alignment) < kRules.grid_aligned) continue;
      says[i] += alignment > 0.f ? vote[j] : -vote[j];
      ++asked[i];
    }
    silent += says[i] == 0;
  }
  // Each point goes by its own vote with its neighbours'; a point without one by its smooth patch's
  // clear vote, else it keeps the tree's sign. Patches alone would not do: under noise a smooth
  // patch can run across a concave corner or a fold the noise blurs, joining regions of opposite
  // true sides. The patches are needed only for silent points and for a seed's or a viewpoint's side.
  PatchVotes votes{std::vector<std::int32_t>(m), {}, std::vector<std::int32_t>(m, 0), std::vector<std::int32_t>(m, 0)};
  const bool with_patches = silent > 0 || user_seed >= 0 || known_viewpoint;
  if (with_patches) {
    votes.patch = smoothPatches(finite, graph, stride, threads);
    detail::groupByKey(votes.patch, m, votes.members.offsets, votes.members.indices);
  } else {
    std::iota(votes.patch.begin(), votes.patch.end(), 0);  // one patch per point: never read
  }
  const std::vector<std::int32_t>& patch = votes.patch;
  for (std::size_t i = 0; i < m; ++i)
    if (says[i] != 0) (says[i] < 0 ? votes.in : votes.out)[patch[i]] += 1;
  const std::vector<char> inward =
      with_patches ? inwardParts(votes, part, user_seed, known_viewpoint) : std::vector<char>(m, 0);
  const std::int32_t kept = user_seed >= 0 ? patch[user_seed] : -1;
  for (std::size_t i = 0; i < m; ++i) {
    const std::int32_t p = patch[i];
    if (p == kept) continue;
    int side = says[i];
    // How sure: the margin of the point's own vote among the neighbours asked (1: each of them has
    // a walk that alone gets out on that side), or half the margin of its patch's clear vote; 0
    // where nothing decides.
    confidence[i] = side != 0 ? float(std::abs(side)) / float(2 * std::max(asked[i], 1)) : 0.f;
    if (side == 0 && with_patches && clearVote(votes.in[p], votes.out[p])) {
      side = votes.out[p] - votes.in[p];
      confidence[i] = 0.5f * float(std::abs(side)) / float(votes.in[p] + votes.out[p]);
    }
    if (side == 0) {
      ++report.undecided;
      continue;
    }
    if ((side < 0) == bool(inward[part[i]])) continue;
    negate(&finite.normal[3 * i]);
    ++report.grid_flipped;
  }
}

}  // namespace detail
}  // namespace pcl_dise
