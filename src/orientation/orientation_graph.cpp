// The graph of the finite points, its minimum spanning forest, the sides propagated along it and each part's side by
// its cap.
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

FinitePoints finitePoints(const float* points, const float* normals, std::size_t num_points) {
  FinitePoints finite;
  finite.index.reserve(num_points);
  finite.xyz.reserve(3 * num_points);
  finite.normal.reserve(3 * num_points);
  for (std::size_t i = 0; i < num_points; ++i) {
    const float* p = points + 3 * i;
    const float* n = normals + 3 * i;
    const float length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2]) || !std::isfinite(length) || length == 0.f)
      continue;
    finite.index.push_back(static_cast<std::int64_t>(i));
    finite.xyz.insert(finite.xyz.end(), p, p + 3);
    for (int a = 0; a < 3; ++a) finite.normal.push_back(n[a] / length);
  }
  const std::vector<std::int32_t> order = mortonOrder(finite.xyz.data(), finite.size());
  FinitePoints sorted;
  sorted.index.resize(finite.size());
  sorted.xyz.resize(finite.xyz.size());
  sorted.normal.resize(finite.normal.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t i = static_cast<std::size_t>(order[k]);
    sorted.index[k] = finite.index[i];
    std::copy(&finite.xyz[3 * i], &finite.xyz[3 * i] + 3, &sorted.xyz[3 * k]);
    std::copy(&finite.normal[3 * i], &finite.normal[3 * i] + 3, &sorted.normal[3 * k]);
  }
  return sorted;
}

Neighborhoods nearestRows(const FinitePoints& finite, const KnownRows& known, const std::size_t* listed,
                          std::size_t first, std::size_t count, std::size_t width, std::optional<GridSearch>& search,
                          int threads) {
  const std::size_t m = finite.size();
  auto searchFor = [&]() -> const GridSearch& {
    if (!search) search.emplace(GridSearch::forNearest(finite.xyz.data(), m, width));
    return *search;
  };
  if (!known.any() && !listed) return searchFor().nearest(&finite.xyz[3 * first], count, width, threads);
  Neighborhoods rows;
  rows.offsets.resize(count + 1);
  for (std::size_t q = 0; q <= count; ++q) rows.offsets[q] = static_cast<std::int64_t>(q * width);
  rows.indices.resize(count * width);
  std::vector<char> found(count);
  const auto point = [&](std::size_t q) { return listed ? listed[first + q] : first + q; };
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t q = 0; q < static_cast<std::int64_t>(count); ++q)
    found[q] = known.first(point(std::size_t(q)), width, &rows.indices[std::size_t(q) * width]);
  std::vector<std::size_t> missing;
  std::vector<float> queries;
  for (std::size_t q = 0; q < count; ++q) {
    if (found[q]) continue;
    missing.push_back(q);
    queries.insert(queries.end(), &finite.xyz[3 * point(q)], &finite.xyz[3 * point(q)] + 3);
  }
  if (missing.empty()) return rows;
  const Neighborhoods searched = searchFor().nearest(queries.data(), missing.size(), width, threads);
  for (std::size_t s = 0; s < missing.size(); ++s)
    std::copy(searched.begin(s), searched.begin(s) + width, &rows.indices[missing[s] * width]);
  return rows;
}

void negate(float* v) {
  for (int a = 0; a < 3; ++a) v[a] = -v[a];
}

LocalScale localScale(const FinitePoints& finite, const Neighborhoods& graph, std::size_t stride, int threads) {
  LocalScale scale;
  scale.noise.assign(finite.size(), 0.f);
  scale.own_noise.assign(finite.size(), 0.f);
  scale.spacing.assign(finite.size(), 0.f);
  const auto m = static_cast<std::int64_t>(finite.size());
#pragma omp parallel num_threads(threads)
  {
    std::vector<float> offsets, distances;  // one pair per thread, reused point after point
    offsets.reserve(stride);
    distances.reserve(stride);
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < m; ++i) {
      offsets.clear();
      distances.clear();
      const float* p_i = &finite.xyz[3 * i];
      for (std::size_t s = 0; s < stride; ++s) {
        const std::int32_t j = graph.indices[static_cast<std::size_t>(i) * stride + s];
        if (j == i) continue;
        const float* p_j = &finite.xyz[3 * j];
        const float d[3] = {p_j[0] - p_i[0], p_j[1] - p_i[1], p_j[2] - p_i[2]};
        offsets.push_back(std::abs(dot(d, &finite.normal[3 * i])));
        distances.push_back(std::sqrt(dot(d, d)));
      }
      if (offsets.empty()) continue;
      const std::size_t middle = offsets.size() / 2;
      std::nth_element(offsets.begin(), offsets.begin() + middle, offsets.end());
      std::nth_element(distances.begin(), distances.begin() + middle, distances.end());
      scale.noise[i] = offsets[middle];
      const auto low = static_cast<std::size_t>(kRules.own_layer_quantile * (offsets.size() - 1));
      std::nth_element(offsets.begin(), offsets.begin() + low, offsets.begin() + middle);
      scale.own_noise[i] = offsets[low];
      scale.spacing[i] = distances[middle];
    }
  }
  return scale;
}

std::vector<float> layerTolerance(const LocalScale& scale) {
  std::vector<float> tolerance(scale.noise.size());
  for (std::size_t i = 0; i < tolerance.size(); ++i)
    tolerance[i] = kRules.layer_margin * scale.noise[i] + kRules.layer_spacing * scale.spacing[i];
  return tolerance;
}

namespace {

struct Agreement {
  float value;         // > 0: n_j agrees with n_i; < 0: n_j must flip; |value|: how sure
  bool through_sheet;  // an edge to try last (kRules.sheet_chord)
};

// How well n_j agrees with n_i carried to p_j. Between two layers: opposite. Otherwise n_i reflected
// across the plane that bisects the chord p_i -> p_j, which maps a circular arc through both points
// onto itself, normals included: on a plane this is n_i . n_j (Hoppe's rule); across a sharp edge
// it still gives the sign that keeps both sides facing out.
Agreement agreement(const FinitePoints& finite, const std::vector<float>& tolerance, std::int32_t i, std::int32_t j) {
  const float* p_i = &finite.xyz[3 * i];
  const float* p_j = &finite.xyz[3 * j];
  const float* n_i = &finite.normal[3 * i];
  const float* n_j = &finite.normal[3 * j];
  const float chord[3] = {p_j[0] - p_i[0], p_j[1] - p_i[1], p_j[2] - p_i[2]};
  const float length = std::sqrt(dot(chord, chord));
  const float parallel = dot(n_i, n_j);
  if (length == 0.f) return {parallel, false};
  const float h_i = dot(n_i, chord), h_j = dot(n_j, chord);
  const bool near_parallel = std::abs(parallel) > kRules.sheet_parallel;
  if (near_parallel && std::abs(h_i) > tolerance[i] && std::abs(h_j) > tolerance[j]) return {-parallel, false};
  const float a = h_i / length, b = h_j / length;
  return {parallel - 2.f * a * b,
          near_parallel && std::abs(a) > kRules.sheet_chord && std::abs(b) > kRules.sheet_chord};
}

}  // namespace

bool listed(const Neighborhoods& graph, std::size_t stride, std::int32_t i, std::int32_t j) {
  const std::int32_t* row = &graph.indices[static_cast<std::size_t>(i) * stride];
  return std::find(row, row + stride, j) != row + stride;
}

std::vector<std::uint32_t> edgeKeys(const FinitePoints& finite, const std::vector<float>& tolerance,
                                    const Neighborhoods& graph, std::size_t stride, int threads) {
  std::vector<std::uint32_t> keys(graph.numEdges());
  const auto m = static_cast<std::int64_t>(finite.size());
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < m; ++i)
    for (std::size_t s = 0; s < stride; ++s) {
      const std::size_t e = static_cast<std::size_t>(i) * stride + s;
      const std::int32_t j = graph.indices[e];
      if (j == i || (j < i && listed(graph, stride, j, static_cast<std::int32_t>(i)))) {
        keys[e] = kNoEdge;
        continue;
      }
      const Agreement agree = agreement(finite, tolerance, static_cast<std::int32_t>(i), j);
      const float sure = std::min(1.f, std::abs(agree.value));
      const auto level = std::min(kCostLevels - 1, static_cast<std::uint32_t>((1.f - sure) * kCostLevels));
      keys[e] = level + (agree.through_sheet ? kCostLevels : 0u);
    }
  return keys;
}

namespace {

// The graph's edges (their two ends) by increasing key (stable: equal keys keep their order),
// kNoEdge entries left out; the ends are read here, in the keys' order, so that the spanning tree
// reads its edges in order.
struct SortedEdges {
  std::vector<std::array<std::int32_t, 2>> ends;
  std::size_t first_through_sheet = 0;  // the edges from here on cross a sheet
};

SortedEdges sortedEdges(const std::vector<std::uint32_t>& keys, const Neighborhoods& graph, std::size_t stride) {
  std::vector<std::uint32_t> start(2 * kCostLevels + 1, 0);
  for (const std::uint32_t key : keys)
    if (key != kNoEdge) ++start[key + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  SortedEdges sorted;
  sorted.first_through_sheet = start[kCostLevels];
  sorted.ends.resize(start.back());
  for (std::size_t e = 0; e < keys.size(); ++e)
    if (keys[e] != kNoEdge) sorted.ends[start[keys[e]]++] = {static_cast<std::int32_t>(e / stride), graph.indices[e]};
  return sorted;
}

}  // namespace

Forest spanningForest(std::size_t m, const Neighborhoods& graph, std::size_t stride, std::vector<std::uint32_t> keys) {
  const SortedEdges sorted = sortedEdges(keys, graph, stride);
  std::vector<std::uint32_t>().swap(keys);  // read no more: freed before the trees grow
  DisjointSets sets(m);
  std::vector<std::int32_t> from, to;
  Forest forest;
  for (std::size_t s = 0; s < sorted.ends.size(); ++s) {
    const auto [i, j] = sorted.ends[s];
    if (!sets.join(i, j)) continue;
    from.push_back(i);
    to.push_back(j);
    forest.through_sheet += s >= sorted.first_through_sheet;
    if (from.size() + 1 == m) break;
  }
  // Each tree edge in both directions: ends[t] is the far end of the half-edge keyed by starts[t].
  std::vector<std::int32_t> starts = from, ends = to;
  starts.insert(starts.end(), to.begin(), to.end());
  ends.insert(ends.end(), from.begin(), from.end());
  detail::groupByKey(starts, m, forest.adjacency.offsets, forest.adjacency.indices);
  for (std::int32_t& half_edge : forest.adjacency.indices) half_edge = ends[half_edge];
  forest.part.resize(m);
  for (std::size_t i = 0; i < m; ++i) forest.part[i] = sets.find(static_cast<std::int32_t>(i));
  return forest;
}

std::vector<std::int32_t> propagate(FinitePoints& finite, const std::vector<float>& tolerance, const Forest& forest,
                                    std::int32_t user_seed, std::vector<float>& confidence, int threads) {
  const std::size_t m = finite.size();
  // Each half-edge's agreement from the normals as they come, in parallel: the walk then negates
  // it where the parent has flipped (the agreement is odd in either normal, to the bit).
  const Neighborhoods& tree = forest.adjacency;
  std::vector<float> agrees(tree.indices.size());
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(m); ++i)
    for (std::int64_t e = tree.offsets[i]; e < tree.offsets[i + 1]; ++e)
      agrees[e] = agreement(finite, tolerance, static_cast<std::int32_t>(i), tree.indices[e]).value;
  std::vector<char> reached(m, 0), flipped(m, 0);
  std::vector<std::int32_t> queue, parts;
  queue.reserve(m);
  auto walk = [&](std::int32_t seed) {
    parts.push_back(forest.part[seed]);
    queue.assign(1, seed);
    reached[seed] = 1;
    confidence[seed] = 1.f;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const std::int32_t i = queue[head];
      for (std::int64_t e = tree.offsets[i]; e < tree.offsets[i + 1]; ++e) {
        const std::int32_t j = tree.indices[e];
        if (reached[j]) continue;
        reached[j] = 1;
        const float says = flipped[i] ? -agrees[e] : agrees[e];
        if (says < 0.f) {
          negate(&finite.normal[3 * j]);
          flipped[j] = 1;
        }
        confidence[j] = std::min(std::abs(says), 1.f);
        queue.push_back(j);
      }
    }
  };
  if (user_seed >= 0) walk(user_seed);
  for (std::size_t i = 0; i < m; ++i)
    if (!reached[i]) walk(static_cast<std::int32_t>(i));
  return parts;
}

std::vector<char> flipsByCapVote(const FinitePoints& finite, const Forest& forest, const OrientationOptions& options) {
  const std::size_t m = finite.size();
  std::vector<float> score(m);
  for (std::size_t i = 0; i < m; ++i) {
    const float* p = &finite.xyz[3 * i];
    const float d[3] = {options.viewpoint[0] - p[0], options.viewpoint[1] - p[1], options.viewpoint[2] - p[2]};
    score[i] = options.has_viewpoint ? -dot(d, d) : p[2];
  }
  auto higher = [&](std::int32_t a, std::int32_t b) { return score[a] > score[b] || (score[a] == score[b] && a < b); };
  // Each part's cap selected among its own points, then all caps visited highest first.
  std::vector<std::int64_t> offsets;
  std::vector<std::int32_t> members, cap;
  detail::groupByKey(forest.part, m, offsets, members);
  for (std::size_t part = 0; part < m; ++part) {
    const auto first = members.begin() + offsets[part], last = members.begin() + offsets[part + 1];
    const auto size = static_cast<std::size_t>(last - first);
    const auto top = first + std::min(size, std::max<std::size_t>(options.neighbors + 1, size / 100));
    std::nth_element(first, top, last, higher);
    cap.insert(cap.end(), first, top);
  }
  std::sort(cap.begin(), cap.end(), higher);
  std::vector<double> vote(m, 0.0);
  for (const std::int32_t i : cap) {
    const std::int32_t part = forest.part[i];
    const float* p = &finite.xyz[3 * i];
    const float* n = &finite.normal[3 * i];
    if (!options.has_viewpoint) {
      vote[part] += n[2];
      continue;
    }
    const float towards[3] = {options.viewpoint[0] - p[0], options.viewpoint[1] - p[1], options.viewpoint[2] - p[2]};
    const float length = std::sqrt(dot(towards, towards));
    vote[part] += length > 0.f ? dot(n, towards) / length : 0.f;
  }
  std::vector<char> flip(m, 0);
  for (std::size_t part = 0; part < m; ++part) flip[part] = vote[part] < 0.0;
  return flip;
}

}  // namespace detail
}  // namespace pcl_dise
