#include "pcl_dise/orientation/orientation_propagation.h"

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
namespace {

using detail::dot;

// Two near-parallel normals (within 30 degrees, up to sign) belong to two layers, the two faces of a
// thin wall or two surfaces facing each other, where each point lies off the other's tangent plane by
// more than that point's layer tolerance (layerTolerance). Outward normals of two layers are
// opposite, whatever the chord's slant: read as one slanted plane, a chord longer than the wall is
// thick would join the faces with the same sign.
constexpr float kSheetParallel = 0.866f;
// Without that evidence, an edge between near-parallel normals whose chord leaves both tangent planes
// by more than 30 degrees may cross a sheet, or may be noise: it joins the tree only where nothing
// else does. (Sharp creases, whose normals differ more, keep their edges: the most symmetric of those
// carry the sign across best.)
constexpr float kSheetChord = 0.5f;
// Edge costs are sorted by counting: 2^16 levels, and sheet edges after all others.
constexpr std::uint32_t kCostLevels = 1u << 16;
constexpr std::uint32_t kNoEdge = std::numeric_limits<std::uint32_t>::max();
// A side decided with less confidence than this is counted as low (OrientationReport::low_confidence).
constexpr float kLowConfidence = 0.5f;

// The points with a finite position and a finite, non-zero normal, normals scaled to unit length,
// in Morton order (spatial_order.h): the graph's search, its edges and the grids then read points
// that lie together in memory, whatever order the cloud came in.
struct FinitePoints {
  std::vector<std::int64_t> index;  // into the caller's arrays
  std::vector<float> xyz, normal;   // size() x 3
  std::size_t size() const { return index.size(); }
};

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

// The caller's known neighbourhoods (KnownNeighborhoods) in the finite points' numbering.
class KnownRows {
 public:
  KnownRows(const KnownNeighborhoods* known, const FinitePoints& finite, std::size_t num_points) {
    if (!known || !known->rows) return;
    const Neighborhoods& rows = *known->rows;
    const std::size_t row_count = rows.numNodes();
    if (row_count > 0 && !known->point_of_row)
      throw std::invalid_argument("orientNormals: known neighbourhoods without the points of their rows");
    std::vector<std::int32_t> finite_of_point(num_points, -1);
    for (std::size_t i = 0; i < finite.size(); ++i) finite_of_point[finite.index[i]] = static_cast<std::int32_t>(i);
    finite_of_row_.assign(row_count, -1);
    row_of_finite_.assign(finite.size(), -1);
    for (std::size_t r = 0; r < row_count; ++r) {
      const std::int64_t p = known->point_of_row[r];
      if (p < -1 || p >= static_cast<std::int64_t>(num_points))
        throw std::invalid_argument("orientNormals: known row " + std::to_string(r) + " belongs to point " +
                                    std::to_string(p) + ", outside a cloud of " + std::to_string(num_points));
      if (p < 0) continue;
      finite_of_row_[r] = finite_of_point[p];
      if (finite_of_row_[r] >= 0) row_of_finite_[finite_of_row_[r]] = static_cast<std::int32_t>(r);
    }
    const auto outside = [&](std::int32_t e) { return e < 0 || static_cast<std::size_t>(e) >= row_count; };
    if (std::any_of(rows.indices.begin(), rows.indices.end(), outside))
      throw std::invalid_argument("orientNormals: a known neighbourhood names a row outside its " +
                                  std::to_string(row_count) + " rows");
    // A point oriented here that the rows left out (no row, or an empty one: the estimation left it
    // without a normal, which it has now) may be missing from other rows too: search instead.
    const auto left_out = [&](std::int32_t r) { return r < 0 || rows.size(static_cast<std::size_t>(r)) == 0; };
    if (std::none_of(row_of_finite_.begin(), row_of_finite_.end(), left_out)) rows_ = &rows;
  }

  bool any() const { return rows_ != nullptr; }

  // Finite point i's first `width` neighbours among the finite points into out; false where its row
  // holds fewer (or it has none).
  bool first(std::size_t i, std::size_t width, std::int32_t* out) const {
    if (!rows_ || row_of_finite_[i] < 0) return false;
    const auto r = static_cast<std::size_t>(row_of_finite_[i]);
    std::size_t got = 0;
    for (const std::int32_t *e = rows_->begin(r), *end = e + rows_->size(r); e != end && got < width; ++e) {
      const std::int32_t j = finite_of_row_[static_cast<std::size_t>(*e)];
      if (j >= 0) out[got++] = j;
    }
    return got == width;
  }

 private:
  const Neighborhoods* rows_ = nullptr;
  std::vector<std::int32_t> finite_of_row_;  // -1: a row of no finite point
  std::vector<std::int32_t> row_of_finite_;  // -1: no row
};

// The `width` (<= the finite points) nearest finite points of finite points first .. first+count-1,
// or of listed[first ..] where listed is given, each itself included, nearest first, in rows of
// `width`: read from the known rows where they hold that many, searched for the others (`search`
// made at the first need).
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

// Per point, from its graph neighbours: the median |offset| along its normal (noise; near zero on a
// clean flat part, also beside a thin wall whose far face holds fewer than half the neighbours),
// the |offset| that 30% of them stay below (noise that the far face of a thin wall leaves alone
// while it holds fewer than 70% of the neighbours), and the median distance to them (spacing).
constexpr float kOwnLayerQuantile = 0.3f;

struct LocalScale {
  std::vector<float> noise, own_noise, spacing;
};

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
      const auto low = static_cast<std::size_t>(kOwnLayerQuantile * (offsets.size() - 1));
      std::nth_element(offsets.begin(), offsets.begin() + low, offsets.begin() + middle);
      scale.own_noise[i] = offsets[low];
      scale.spacing[i] = distances[middle];
    }
  }
  return scale;
}

// How far off its tangent plane a point's graph neighbours may lie and still be on its own layer: a
// margin over the noise plus a share of the spacing (curvature, and the kinks of a triangle mesh).
constexpr float kLayerMargin = 5.f;
constexpr float kLayerSpacing = 0.5f;

std::vector<float> layerTolerance(const LocalScale& scale) {
  std::vector<float> tolerance(scale.noise.size());
  for (std::size_t i = 0; i < tolerance.size(); ++i)
    tolerance[i] = kLayerMargin * scale.noise[i] + kLayerSpacing * scale.spacing[i];
  return tolerance;
}

struct Agreement {
  float value;         // > 0: n_j agrees with n_i; < 0: n_j must flip; |value|: how sure
  bool through_sheet;  // an edge to try last (kSheetChord)
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
  const bool near_parallel = std::abs(parallel) > kSheetParallel;
  if (near_parallel && std::abs(h_i) > tolerance[i] && std::abs(h_j) > tolerance[j]) return {-parallel, false};
  const float a = h_i / length, b = h_j / length;
  return {parallel - 2.f * a * b, near_parallel && std::abs(a) > kSheetChord && std::abs(b) > kSheetChord};
}

// Sort key of each graph edge: cost 1 - |agreement| in kCostLevels steps, edges through a sheet
// after every other; kNoEdge for a point's own entry and for the second copy of an edge both ends
// list (j -> i where i < j lists j too). The agreement is symmetric, so that copy has the same key
// and comes later in the stable sort, where Kruskal would find its ends joined already: leaving it
// out changes no tree and sorts about a third fewer edges.
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

class DisjointSets {
 public:
  explicit DisjointSets(std::size_t n) : parent_(n), size_(n, 1) { std::iota(parent_.begin(), parent_.end(), 0); }
  std::int32_t find(std::int32_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  bool join(std::int32_t a, std::int32_t b) {
    a = find(a);
    b = find(b);
    if (a == b) return false;
    if (size_[a] < size_[b]) std::swap(a, b);
    parent_[b] = a;
    size_[a] += size_[b];
    return true;
  }

 private:
  std::vector<std::int32_t> parent_, size_;
};

// The minimum spanning forest (Kruskal) as adjacency lists.
struct Forest {
  Neighborhoods adjacency;
  std::vector<std::int32_t> part;  // a representative point of each point's tree
  std::size_t through_sheet = 0;
};

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

// Breadth-first along each tree from its seed (the user's, else any point of it): a child flips
// where it disagrees with its parent, the seed keeps its normal. confidence[i] (size m): |agreement|
// of the edge that gave point i its sign (1 at a seed). Returns the parts' representatives.
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

// Each part's side, by a vote over its cap: the 1% of its points (at least neighbors + 1) nearest
// the viewpoint, or topmost. Over the surface of a closed shape above any horizontal plane, the
// outward normals sum to an upward vector (the cap and the disc it stands on close a volume), so
// the vote holds where single points mislead: at a sharp apex a face can lean down. With a
// viewpoint, the points nearest it face it. Returns, per representative, whether to flip it.
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

// Smooth patches: points joined by graph edges whose normals, as oriented, agree within 20
// degrees and whose chord lies within 20 degrees of both tangent planes, so that no patch spans a
// crease or both faces of a wall. Returns each point's patch representative.
constexpr float kPatchParallel = 0.94f;
constexpr float kPatchChord = 0.34f;
// A graph neighbour lends its outside-grid vote where its normal lies within 60 degrees of the line.
constexpr float kGridAligned = 0.5f;

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
      if (j == i || dot(n_i, n_j) < kPatchParallel) continue;
      const float* p_i = &finite.xyz[3 * i];
      const float* p_j = &finite.xyz[3 * j];
      const float chord[3] = {p_j[0] - p_i[0], p_j[1] - p_i[1], p_j[2] - p_i[2]};
      const float length = std::sqrt(dot(chord, chord));
      joins[std::size_t(i) * stride + s] =
          std::abs(dot(chord, n_i)) <= kPatchChord * length && std::abs(dot(chord, n_j)) <= kPatchChord * length;
    }
  DisjointSets sets(m);
  for (std::size_t e = 0; e < joins.size(); ++e)
    if (joins[e]) sets.join(static_cast<std::int32_t>(e / stride), graph.indices[e]);
  std::vector<std::int32_t> patch(m);
  for (std::size_t i = 0; i < m; ++i) patch[i] = sets.find(static_cast<std::int32_t>(i));
  return patch;
}

// Votes per smooth patch: points of it that say it faces out, and in.
struct PatchVotes {
  std::vector<std::int32_t> patch;  // each point's patch representative
  Neighborhoods members;            // the points of each patch, by representative
  std::vector<std::int32_t> in, out;
};

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

// Flips the patches whose votes say they face the wrong way (inwardParts), by at least min_votes
// and a clear vote; the seed point's patch never flips. Returns the points flipped. With
// confidence, a flipped point's is set to half its patch's margin (as for a patch's vote, step 7).
std::size_t flipPatchesByVotes(FinitePoints& finite, const PatchVotes& votes, const std::vector<std::int32_t>& part,
                               std::int32_t user_seed, bool known_viewpoint, std::int32_t min_votes,
                               std::vector<float>* confidence = nullptr) {
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

// Ray parity. From a point of a closed surface, a ray on the outward side of its tangent plane
// crosses an even number of further sheets, and the opposite ray an odd number. Each smooth patch of
// at least kParityFlips points sends rays from up to kParityRays of its points, in
// kParityDirections directions 35 degrees off the normal (so that they run along no face of an
// axis-aligned shape) and their opposites; a ray pair votes where its two counts differ in parity,
// a point as most of its pairs. A patch flips where at least kParityFlips points and three quarters
// of its votes say its normals point in (out, in a part whose side a seed point or a viewpoint
// chose inwards). A cloud where fewer than half the points vote is taken
// for an open surface, where parity means nothing, and left as the tree made it. The tree goes
// wrong across walls about as thin as the spacing (a fin joined to its base through the fin); rays
// see both faces of such a wall where they lie further apart than the depth a ray skips at its
// start (half the spacing, and thrice the noise of the point's own layer).
constexpr int kParityRays = 9;
constexpr float kParityNoise = 0.4f;
constexpr int kParityFlips = 3;
constexpr int kParityDirections = 4;
constexpr float kParityCosine = 0.819f, kParitySine = 0.574f, kParityAzimuth = 0.35f;

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
  for (int r = 0; r < kParityDirections; ++r) {
    const float azimuth = kParityAzimuth + r * 6.2831853f / kParityDirections;
    const float c = std::cos(azimuth) * kParitySine, d = std::sin(azimuth) * kParitySine;
    float ray[3];
    for (int a = 0; a < 3; ++a) ray[a] = kParityCosine * n[a] + c * t1[a] + d * t2[a];
    const int out = caster.crossings(p, ray, skip, skip, scratch);
    negate(ray);
    const int in = caster.crossings(p, ray, skip, skip, scratch);
    if ((out + in) % 2 == 1) says += out % 2 == 0 ? 1 : -1;
  }
  return (says > 0) - (says < 0);
}

// With an outside grid, the patches it leaves unsure: those where fewer than kParityUnsure of the
// points have a clear vote of their own (a walk that alone gets out). Judged on the tuning set
// (oriented RMSE of its closed shapes, 100,000 / 15,000 points): 9.27 / 12.61 without, 9.16 /
// 12.31 at a half, 9.15 / 12.01 at three quarters (kept), 9.13 / 11.83 on every patch, where a
// noisy star at 15,000 points fell from 95.8% to 88.2% facing out.
constexpr double kParityUnsure = 0.75;

// Whether patch p (members: its points) is left unsure by the grid's votes (step 7).
bool unsureOnGrid(const Neighborhoods& members, std::size_t p, const std::vector<signed char>& grid_vote) {
  std::int64_t clear = 0;
  for (std::int64_t k = members.offsets[p]; k < members.offsets[p + 1]; ++k)
    clear += std::abs(grid_vote[members.indices[k]]) == 2;
  return double(clear) < kParityUnsure * double(members.size(p));
}

// Flips the smooth patches that the rays say point in; counts them in report.parity_flipped and
// sets report.parity_checked where rays were cast. With grid_vote (an outside grid's votes, step
// 7), only the patches it leaves unsure send rays, and the points flipped take their patch's margin
// as confidence.
void flipPatchesByParity(FinitePoints& finite, const LocalScale& scale, const Neighborhoods& graph, std::size_t stride,
                         const std::vector<std::int32_t>& part, std::int32_t user_seed, bool known_viewpoint,
                         int threads, OrientationReport& report, const std::vector<signed char>* grid_vote = nullptr,
                         std::vector<float>* confidence = nullptr) {
  const std::size_t m = finite.size();
  std::vector<std::int32_t> patch = smoothPatches(finite, graph, stride, threads);
  Neighborhoods members;  // the points of each patch, by representative
  detail::groupByKey(patch, m, members.offsets, members.indices);

  std::vector<std::int32_t> voters, voters_patch;  // points sending rays, spread over each patch
  for (std::size_t p = 0; p < m; ++p) {
    const auto size = static_cast<std::int64_t>(members.size(p));
    if (size < kParityFlips || (grid_vote && !unsureOnGrid(members, p, *grid_vote))) continue;
    const std::int64_t rays = std::min<std::int64_t>(size, kParityRays);
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
  report.parity_flipped = flipPatchesByVotes(finite, votes, part, user_seed, known_viewpoint, kParityFlips, confidence);
}

// The outside grid (outside_grid.h). Its band must be closed, or the outside floods the shape,
// and thin, or it fills the concave parts near the surface and reads them as inside. Grids are tried
// from fine to coarse (kGridTries), first with no dilation (noise near the spacing fills the band on
// its own), then with one cell of it, then two. A grid counts where the volume enclosed is at least
// kGridEnclosed of the band's, and the one where most points vote is used: a band that leaks
// somewhere (a part whose inside the outside floods) leaves that part's walks leaving both ways,
// silent, while a grid that closes it gives them votes. The search stops at a grid where
// kGridEnough of the points vote. A smaller volume is a pocket the band closed between thin walls
// (the gap of a hairpin: 0.8% of its band), whose faces it would turn inwards. Where fewer than half
// the points vote the band may leak everywhere; such a grid (down to kGridFewest voting) is used
// only where ray parity cannot run (usableGrid). The finest cell is the spacing 90% of the points
// stay within, or the median offset of a point's neighbours from its tangent plane (about the
// noise's deviation) times kGridNoise.
constexpr float kGridNoise = 1.5f, kGridQuantile = 0.9f;
struct GridTry {
  float cell;    // times the finest
  int dilation;  // cells
};
constexpr GridTry kGridTries[] = {{0.75f, 0}, {1.f, 0},   {1.25f, 0}, {1.5f, 0}, {0.75f, 1}, {1.f, 1},
                                  {1.5f, 1},  {2.25f, 1}, {3.4f, 1},  {1.f, 2},  {1.5f, 2}};
constexpr double kGridEnclosed = 0.05, kGridEnough = 0.99, kGridFewest = 0.4;
// At most 2^23 cells (8 MB; the cell grows to fit): building such a grid from 1M points takes about
// 0.1 s here, 0.2 s with a dilation.
constexpr std::size_t kGridCells = std::size_t(1) << 23;
// A point's walk towards the outside: half-cell steps, up to 5 cells each way.
constexpr int kGridSteps = 10;

float quantile(std::vector<float> values, float q) {
  if (values.empty()) return 0.f;
  const auto k = static_cast<std::size_t>(q * float(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + k, values.end());
  return values[k];
}

// The first of kGridSteps half-cell steps from p along n (or -n: ahead false) that lands where
// `lands` says; 0 where none does.
template <class Lands>
int firstStep(const OutsideGrid& grid, const float* p, const float* n, bool ahead, const Lands& lands) {
  const float step = (ahead ? 0.5f : -0.5f) * grid.cell();
  for (int s = 1; s <= kGridSteps; ++s) {
    const float q[3] = {p[0] + s * step * n[0], p[1] + s * step * n[1], p[2] + s * step * n[2]};
    if (lands(q)) return s;
  }
  return 0;
}

// The earlier of two steps (0: never) as a vote: +1 for the first, -1 for the second, 0 for a tie.
int earlier(int first, int second) {
  return (first && (!second || first < second)) - (second && (!first || second < first));
}

// A point's vote, from two walks along n and -n from p, kGridSteps half-cell steps each: +-2 where
// one walk reaches the outside and the other does not; where both do (a wall thinner than the walks,
// a part the noise blurs, a band that leaks), +-1 for the side whose walk gets out first: the nearer
// exit is the likelier side, but weaker evidence (judged on the tuning set: oriented RMSE 9.36 ->
// 9.27 at 100,000 points and 13.01 -> 12.61 at 15,000; read afterwards on the test set's hand
// skeleton under noise 5e-2: undecided points 17% -> 11%).
// Where neither does, with `nearer_inside` (the noise rules out ray parity, which with step 10
// decides these points where it runs), +-1 against the side whose walk first enters the volume the
// band encloses: in a gap between two parts that the band fills, a point's own part's inside lies
// half a band away, the other part's beyond the gap. Judged on the tuning set: 9.11 -> 9.10 and
// 11.88 -> 11.85 (walks of 3 or 10 cells to the inside: 9.11 / 11.85, 9.17 / 11.85); everywhere,
// parity or not: 9.14 / 11.89. Then the test set: 11.83 -> 11.67, 14.60 -> 14.52 (the hand skeleton
// under noise 5e-2, 100,000 points: undecided 10.9% -> 0.8%, 86.7% -> 88.2% facing out).
// Otherwise 0.
int outsideVote(const OutsideGrid& grid, const float* p, const float* n, bool nearer_inside) {
  auto out = [&](const float* q) { return grid.outside(q); };
  const int ahead_at = firstStep(grid, p, n, true, out), behind_at = firstStep(grid, p, n, false, out);
  if (bool(ahead_at) != bool(behind_at)) return ahead_at ? 2 : -2;
  if (ahead_at || !nearer_inside) return earlier(ahead_at, behind_at);
  auto in = [&](const float* q) { return grid.enclosed(q); };
  return earlier(firstStep(grid, p, n, false, in), firstStep(grid, p, n, true, in));
}

// Grids are compared on every point up to kGridSample points, on every stride-th point of the
// Morton order above (spread over the whole shape; at 1M points the comparisons took a fifth of the
// orientation): a sample of 2^17 gives a grid's share of voting points within about 0.3%.
constexpr std::size_t kGridSample = std::size_t(1) << 17;

// Each point's outside-grid vote on the grid where most points vote (none where no grid encloses a
// volume with at least kGridFewest of the points voting: walls thinner than the walks, or a band
// that leaks at every cell tried), its cell and the share of points voting.
struct GridVotes {
  std::vector<signed char> vote;
  float cell = 0.f;
  double voting = 0.;
};

GridVotes outsideVotes(const FinitePoints& finite, const LocalScale& scale, bool nearer_inside, int threads) {
  const std::size_t m = finite.size();
  const std::size_t stride = std::max<std::size_t>(1, (m + kGridSample - 1) / kGridSample);
  const auto sampled = static_cast<std::int64_t>((m + stride - 1) / stride);
  const float finest = std::max(quantile(scale.spacing, kGridQuantile), kGridNoise * quantile(scale.noise, 0.5f));
  auto voteOf = [&](const OutsideGrid& grid, std::size_t i, bool inside) {
    return static_cast<signed char>(outsideVote(grid, &finite.xyz[3 * i], &finite.normal[3 * i], inside));
  };
  // Grids are compared on their clear votes; the nearer inside's half votes are needed only where
  // the sample's votes are kept (every point sampled).
  const bool sample_inside = nearer_inside && stride == 1;
  std::vector<signed char> vote(m);
  std::optional<OutsideGrid> chosen;
  GridVotes best;
  float last_cell = 0.f;
  int last_dilation = -1;
  for (const GridTry& tried : kGridTries) {
    if (!(finest > 0.f)) break;  // all points in one place
    // Where the cell limit grew the last grid's cell past this one's, this grid would be the same.
    if (tried.dilation == last_dilation && finest * tried.cell <= last_cell) continue;
    OutsideGrid grid(finite.xyz.data(), m, finest * tried.cell, tried.dilation, kGridCells);
    last_cell = grid.cell();
    last_dilation = tried.dilation;
    if (double(grid.enclosedCells()) < kGridEnclosed * double(grid.bandCells())) continue;
    std::int64_t voting = 0;
#pragma omp parallel for schedule(static) num_threads(threads) reduction(+ : voting)
    for (std::int64_t s = 0; s < sampled; ++s) {
      const std::size_t i = std::size_t(s) * stride;
      vote[i] = voteOf(grid, i, sample_inside);
      voting += std::abs(vote[i]) == 2;  // a leaking band lets walks out both ways: count the clear votes
    }
    const double share = double(voting) / double(sampled);
    if (share < kGridFewest || share <= best.voting) continue;
    if (stride == 1) best.vote = vote;
    best.cell = grid.cell();
    best.voting = share;
    chosen.emplace(std::move(grid));
    if (share >= kGridEnough) break;
  }
  if (chosen && stride > 1) {
    best.vote.resize(m);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(m); ++i)
      best.vote[i] = voteOf(*chosen, std::size_t(i), nearer_inside);
  }
  return best;
}

// Whether the grid is used: where at least half the points vote; where fewer do (kGridFewest or
// more) only if ray parity cannot run (step 8), which mends thin clean walls better than such a grid.
// Judged on the tuning set at 100,000 points: the closed shapes unchanged, two thin structures under
// noise 1e-1 (a bent sheet 62% -> 88% facing out, a perforated plate 52% -> 80%) mended.
bool usableGrid(const GridVotes& grid, bool parity_runs) {
  if (grid.vote.empty()) return false;
  return grid.voting >= 0.5 || !parity_runs;
}

// Where neither an outside grid nor ray parity can tell the sides (walls thinner than the walks,
// under noise near the spacing): the kMidNeighbors nearest points of a point on a thin wall hold
// both faces, so their centroid lies near the wall's middle, and the point lies on its own face's
// side of it. Its vote: +-2 for the side of the centroid its normal points away from. As many
// neighbours as the estimation's: judged on the tuning set's thin structures under noise 5e-2, 16,
// 32 and 64 neighbours turned the hollow box 48% -> 80%, 86%, 88% facing out.
// Where the neighbourhood holds one face only (a sheet thicker than its reach) the vote is the
// noise's, so the votes are used only where the neighbourhoods show two faces: the offsets along
// the normal from two faces of equal weight, noise sigma, are bimodal once the faces lie more than
// 2 sigma apart, where their kurtosis falls below kTwoFaces (2.5; one face: 3, a Gaussian). The
// median over the cloud decides (a bent sheet under noise 5e-2, whose 64 nearest points reach one
// face: 2.79, and the tree's 94.9% facing out kept; the hollow box: 2.34).
constexpr std::size_t kMidNeighbors = 64;
constexpr float kTwoFaces = 2.5f;

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

// The wall middles of the points listed (queries: their positions, count x 3), kMidChunk points at a
// time (16 MB of neighbourhoods at most).
constexpr std::size_t kMidChunk = std::size_t(1) << 16;

std::vector<WallMiddle> wallMiddles(const FinitePoints& finite, const KnownRows& known, const std::size_t* listed,
                                    std::size_t count, std::size_t k, std::optional<GridSearch>& search, int threads) {
  std::vector<WallMiddle> middles(count);
  for (std::size_t start = 0; start < count; start += kMidChunk) {
    const std::size_t chunk = std::min(kMidChunk, count - start);
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

// The votes, or none where the median neighbourhood shows one face. Above kMidSample points the
// median is read first on a sample (every n-th point in Morton order, spread over the shape): a
// cloud whose sample shows one face skips the search of every point's neighbourhood (1M points:
// about 1.4 s). Otherwise the median over all points decides, as below that size.
constexpr std::size_t kMidSample = std::size_t(1) << 15;

float medianKurtosis(const std::vector<WallMiddle>& middles) {
  std::vector<float> kurtosis(middles.size());
  for (std::size_t q = 0; q < middles.size(); ++q) kurtosis[q] = middles[q].kurtosis;
  return quantile(std::move(kurtosis), 0.5f);
}

std::vector<signed char> wallMiddleVotes(const FinitePoints& finite, const KnownRows& known, int threads) {
  const std::size_t m = finite.size();
  const std::size_t k = std::min(kMidNeighbors, m);
  std::optional<GridSearch> search;
  const std::size_t stride = (m + kMidSample - 1) / kMidSample;
  if (stride > 1) {
    std::vector<std::size_t> sample;
    for (std::size_t i = 0; i < m; i += stride) sample.push_back(i);
    const auto middles = wallMiddles(finite, known, sample.data(), sample.size(), k, search, threads);
    if (!(medianKurtosis(middles) < kTwoFaces)) return {};
  }
  const auto middles = wallMiddles(finite, known, nullptr, m, k, search, threads);
  if (!(medianKurtosis(middles) < kTwoFaces)) return {};
  std::vector<signed char> vote(m);
  for (std::size_t i = 0; i < m; ++i) vote[i] = middles[i].vote;
  return vote;
}

// Turns each point to the side its votes show it (+-2, +-1 or 0 per point: an outside grid's walks,
// or the wall middles); counts in report.undecided the points that neither their own vote nor
// their smooth patch's decides. A point's vote is summed with those of its graph neighbours whose
// normals lie within 60 degrees of its own line (carried over to its sign): their votes start
// elsewhere, which steadies a vote that noise would tip.
void orientByVotes(FinitePoints& finite, const std::vector<signed char>& vote, const Neighborhoods& graph,
                   std::size_t stride, const std::vector<std::int32_t>& part, std::int32_t user_seed,
                   bool known_viewpoint, int threads, OrientationReport& report, std::vector<float>& confidence) {
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
      if (std::abs(alignment) < kGridAligned) continue;
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

// Step 10, for closed shapes where ray parity runs (the noise below kParityNoise of the spacing):
// the points whose side is still unsure (confidence below kLowConfidence) read it from the winding
// number of the sure points nearby. Each sure point is a small oriented disc (area: its spacing
// squared); the solid angle the discs subtend, over 4 pi (the generalized winding number of
// Jacobson et al. 2013, which GCNO and WNNC use to orient), is 1 inside a closed surface and 0
// outside, so it drops across the surface where a normal points out: measured just below and just
// above point i, at p -+ d n, a drop says n points out, a rise says in. Near a point the difference
// is the discs nearby's (a surface r away adds about d / r to it), so its kWindingNeighbors nearest
// points (the estimation's neighbourhood) stand for the whole surface, and the cost is theirs. d is
// half the point's spacing: a part of another surface closer than d lies beyond the lower or upper
// point and reads the wrong way. As with the other votes, a point turns only on a clear vote: its
// discs' terms for one side outweigh the other's three to one (|drop| >= kWindingClear of their
// sum). Judged on the tuning set (oriented RMSE of its closed shapes, 100,000 / 15,000 points):
// 9.15 / 12.01 without, 9.11 / 11.88 with; without the clear-vote rule 9.10 / 12.03; d with twice
// the median noise added, or only where the noise stays under 0.3 of the spacing, or both, 9.11 /
// 11.88 to 11.92.
constexpr std::size_t kWindingNeighbors = 64;
constexpr float kWindingSpacing = 0.5f;
constexpr double kWindingClear = 0.5;

// The winding number's drop from p - d n to p + d n over the sure points in row (times 4 pi).
double windingDrop(const FinitePoints& finite, const LocalScale& scale, const std::vector<float>& sure, std::size_t i,
                   float d, const std::int32_t* row, std::size_t size) {
  const float* p = &finite.xyz[3 * i];
  const float* n = &finite.normal[3 * i];
  double drop = 0., weight = 0.;
  for (std::size_t k = 0; k < size; ++k) {
    const auto j = static_cast<std::size_t>(row[k]);
    if (j == i || sure[j] < kLowConfidence) continue;
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
  return std::abs(drop) >= kWindingClear * weight ? drop : 0.;
}

// Flips the unsure points (not the seed point) whose winding drop says they point in; returns how many.
std::size_t flipUnsureByWinding(FinitePoints& finite, const LocalScale& scale, const KnownRows& known,
                                std::int32_t user_seed, int threads, const std::vector<float>& sure) {
  const std::size_t m = finite.size();
  std::vector<std::size_t> unsure;
  for (std::size_t i = 0; i < m; ++i)
    if (sure[i] < kLowConfidence && std::int32_t(i) != user_seed) unsure.push_back(i);
  if (unsure.empty() || m < 2) return 0;
  const std::size_t width = std::min(kWindingNeighbors + 1, m);  // itself included
  std::vector<char> inward(unsure.size(), 0);
  std::optional<GridSearch> search;
  for (std::size_t start = 0; start < unsure.size(); start += kMidChunk) {
    const std::size_t chunk = std::min(kMidChunk, unsure.size() - start);
    const Neighborhoods rows = nearestRows(finite, known, unsure.data(), start, chunk, width, search, threads);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t r = 0; r < static_cast<std::int64_t>(chunk); ++r) {
      const std::size_t i = unsure[start + std::size_t(r)];
      const float d = kWindingSpacing * scale.spacing[i];
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

}  // namespace

OrientationReport orientNormals(const float* points, float* normals, std::size_t num_points,
                                const OrientationOptions& options, float* confidence,
                                const KnownNeighborhoods* known_neighborhoods) {
  if (options.neighbors < 1)
    throw std::invalid_argument("orientNormals: neighbors must be at least 1, got " +
                                std::to_string(options.neighbors));
  if (options.seed_index < -1 || options.seed_index >= static_cast<std::int64_t>(num_points))
    throw std::invalid_argument("orientNormals: seed index " + std::to_string(options.seed_index) +
                                " outside a cloud of " + std::to_string(num_points) + " points");
  FinitePoints finite = finitePoints(points, normals, num_points);
  OrientationReport report;
  const std::size_t m = finite.size();
  if (confidence) std::fill(confidence, confidence + num_points, std::numeric_limits<float>::quiet_NaN());
  report.oriented = m;
  report.without_normal = num_points - m;
  if (m == 0) return report;

  const std::size_t stride = std::min<std::size_t>(options.neighbors + 1, m);
  if (m * stride >= kNoEdge) throw std::length_error("orientNormals: too many graph edges; lower neighbors");
  const int threads = detail::resolveThreads(options.threads);
  const KnownRows known(known_neighborhoods, finite, num_points);
  std::optional<GridSearch> graph_search;
  const Neighborhoods graph = nearestRows(finite, known, nullptr, 0, m, stride, graph_search, threads);
  const LocalScale scale = localScale(finite, graph, stride, threads);
  const std::vector<float> tolerance = layerTolerance(scale);
  const Forest forest = spanningForest(m, graph, stride, edgeKeys(finite, tolerance, graph, stride, threads));
  report.sheet_crossings = forest.through_sheet;

  std::int32_t user_seed = -1;
  if (options.seed_index >= 0) {
    const auto found = std::find(finite.index.begin(), finite.index.end(), options.seed_index);
    if (found != finite.index.end()) user_seed = static_cast<std::int32_t>(found - finite.index.begin());
  }

  std::vector<float> sure(m, 0.f);  // each point's confidence in its side
  const std::vector<std::int32_t> parts = propagate(finite, tolerance, forest, user_seed, sure, threads);
  report.parts = parts.size();
  const std::vector<char> flip = flipsByCapVote(finite, forest, options);
  const std::int32_t user_part = user_seed >= 0 ? forest.part[user_seed] : -1;
  for (std::size_t i = 0; i < m; ++i) {
    const std::int32_t part = forest.part[i];
    report.isolated += forest.adjacency.size(i) == 0;
    if (part != user_part && flip[part]) negate(&finite.normal[3 * i]);
  }
  if (options.closed) {
    // Ray parity reads discs in the tangent planes. Where the noise (the median offset of a point's
    // graph neighbours from its tangent plane) reaches kParityNoise of the spacing (their median
    // distance) the discs no longer form sheets and its votes flip patches at random: measured
    // 0.28-0.35 on the validation set's thin walls at noise 1e-2, where parity mends them, and 0.45
    // at noise 5e-2, where it turns them half inside out.
    const bool parity_runs = quantile(scale.noise, 0.5f) < kParityNoise * quantile(scale.spacing, 0.5f);
    const GridVotes grid = outsideVotes(finite, scale, !parity_runs, threads);
    report.outside_grid = usableGrid(grid, parity_runs);
    if (report.outside_grid) {
      report.grid_cell = grid.cell;
      orientByVotes(finite, grid.vote, graph, stride, forest.part, user_seed, options.has_viewpoint, threads, report,
                    sure);
      if (parity_runs)
        flipPatchesByParity(finite, scale, graph, stride, forest.part, user_seed, options.has_viewpoint, threads,
                            report, &grid.vote, &sure);
    } else if (parity_runs) {
      flipPatchesByParity(finite, scale, graph, stride, forest.part, user_seed, options.has_viewpoint, threads, report);
    } else {
      const std::vector<signed char> vote = wallMiddleVotes(finite, known, threads);
      report.wall_middles = !vote.empty();
      if (report.wall_middles)
        orientByVotes(finite, vote, graph, stride, forest.part, user_seed, options.has_viewpoint, threads, report,
                      sure);
    }
    if (parity_runs) report.winding_flipped = flipUnsureByWinding(finite, scale, known, user_seed, threads, sure);
  }

  for (std::size_t i = 0; i < m; ++i) {
    report.low_confidence += sure[i] < kLowConfidence;
    if (confidence) confidence[finite.index[i]] = sure[i];
    float* n = normals + 3 * finite.index[i];
    if (dot(n, &finite.normal[3 * i]) >= 0.f) continue;
    negate(n);
    ++report.flipped;
  }
  return report;
}

}  // namespace pcl_dise
