// Iteration 0 and the neighbourhood rules shared by every backend (docs/algorithm.md): plain PCA
// per point, and what the iterations read of the points that have no normal.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "iteration_zero.h"
#include "pcl_dise/core/plane_fit.h"
#include "pcl_dise/core/spatial_order.h"
#include "pcl_dise/core/threads.h"

namespace pcl_dise {

namespace detail {

void checkForwardInput(const ForwardInput& input) {
  const Neighborhoods& full = *input.neighborhoods;
  const std::size_t m = input.num_points;
  if (full.numNodes() != m)
    throw std::invalid_argument("forward pass: " + std::to_string(full.numNodes()) + " neighbourhoods for " +
                                std::to_string(m) + " points");
  if (full.offsets.empty() || full.offsets.front() != 0 ||
      full.offsets.back() != static_cast<std::int64_t>(full.numEdges()))
    throw std::invalid_argument("forward pass: neighbourhood offsets do not match the index array");
  for (std::size_t i = 0; i < m; ++i)
    if (full.offsets[i + 1] < full.offsets[i]) throw std::invalid_argument("forward pass: offsets decrease");
  for (std::int32_t j : full.indices)
    if (j < 0 || static_cast<std::size_t>(j) >= m)
      throw std::invalid_argument("forward pass: neighbour index " + std::to_string(j) + " out of range [0, " +
                                  std::to_string(m) + ")");
  checkEdgeScale(input.edge_scale);
  if (input.edge_scales)
    for (std::size_t i = 0; i < m; ++i)
      if (!std::isfinite(input.edge_scales[i]) || !(input.edge_scales[i] > 0))
        throw std::invalid_argument("forward pass: the edge scale of point " + std::to_string(i) +
                                    " is not finite and positive");
}

void checkEdgeScale(float edge_scale) {
  if (!std::isnan(edge_scale) && (!std::isfinite(edge_scale) || !(edge_scale > 0)))
    throw std::invalid_argument("forward pass: edge scale must be finite and positive");
}

PreparedGraph prepareGraph(const ForwardInput& input, int threads, Neighborhoods* owned) {
  if (std::isnan(input.edge_scale) && !input.edge_scales)
    throw std::invalid_argument("forward pass: edge scale must be finite and positive");
  checkForwardInput(input);
  const Neighborhoods& full = *input.neighborhoods;
  const std::size_t m = input.num_points;
  PreparedGraph g;
  g.points = input.points;
  g.last_iteration = input.last_iteration;
  g.num_points = m;
  g.edge_scale = input.edge_scale;
  g.edge_scales = input.edge_scales;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  g.normals.assign(3 * m, nan);
  g.curvature.assign(m, nan);
  g.active.assign(m, 0);
  if (input.visit_order) {
    g.visit_order.assign(input.visit_order, input.visit_order + m);
    std::vector<char> seen(m, 0);
    for (const std::int32_t i : g.visit_order)
      if (i < 0 || static_cast<std::size_t>(i) >= m || seen[i]++)
        throw std::invalid_argument("forward pass: visit_order is not a permutation of the points");
  } else {
    g.visit_order = mortonOrder(input.points, m);
  }

  // Iteration 0: PCA over the full neighbourhoods, as pcl::NormalEstimation does. One thread
  // first allocates the initial weights (a serial zero fill, page faults: 14 ms at 100,000 points
  // and k = 64) while the others fit; rows without a normal below only shrink them.
#pragma omp parallel num_threads(resolveThreads(threads))
  {
#pragma omp single nowait
    g.initial_weights.resize(full.indices.size());
#pragma omp for schedule(dynamic, 256)
    for (std::int64_t t = 0; t < static_cast<std::int64_t>(m); ++t) {
      const std::int64_t i = g.visit_order[t];
      if (full.size(i) < 3) continue;
      float normal[3], curvature;
      if (fitPlane<double>(input.points, input.points + 3 * i, full.begin(i), nullptr, static_cast<int>(full.size(i)),
                           normal, &curvature)) {
        for (int c = 0; c < 3; ++c) g.normals[3 * i + c] = normal[c];
        g.curvature[i] = curvature;
        g.active[i] = 1;
      }
    }
  }

  // A point without a normal keeps its place in its neighbours' neighbourhoods (its position
  // enters their fits; the iterations read a zero normal for it, startingState) and gets no
  // neighbourhood of its own: a point has a normal exactly where its own neighbourhood gives a
  // plane, as in pcl::NormalEstimation, whatever its neighbours have.
  bool all_active = true;
  for (std::size_t i = 0; i < m && all_active; ++i) all_active = g.active[i];
  if (owned && owned == input.neighborhoods && all_active) {
    g.neighborhoods = std::move(*owned);
  } else {
    g.neighborhoods.offsets.assign(m + 1, 0);
    for (std::size_t i = 0; i < m; ++i)
      g.neighborhoods.offsets[i + 1] = g.neighborhoods.offsets[i] + (g.active[i] ? full.size(i) : 0);
    g.neighborhoods.indices.resize(static_cast<std::size_t>(g.neighborhoods.offsets[m]));
#pragma omp parallel for num_threads(resolveThreads(threads)) schedule(dynamic, 1024)
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(m); ++i)
      if (g.active[i])
        std::copy_n(full.begin(i), full.size(i), g.neighborhoods.indices.data() + g.neighborhoods.offsets[i]);
  }
  g.initial_weights.resize(g.neighborhoods.indices.size());
#pragma omp parallel for num_threads(resolveThreads(threads)) schedule(dynamic, 1024)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(m); ++i) {
    const std::int64_t first = g.neighborhoods.offsets[i], count = g.neighborhoods.size(i);
    std::fill_n(g.initial_weights.data() + first, count, count > 1 ? 1.f / static_cast<float>(count - 1) : 0.f);
  }
  return g;
}

void startingState(const PreparedGraph& g, std::vector<float>& normals, std::vector<float>& curvature) {
  normals = g.normals;
  curvature = g.curvature;
  for (std::size_t i = 0; i < g.num_points; ++i)
    if (!g.active[i]) normals[3 * i] = normals[3 * i + 1] = normals[3 * i + 2] = 0.f;
}

void withoutNormalAsNaN(const PreparedGraph& g, ForwardResult& result) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto mark = [&](std::vector<float>& normals) {
    if (normals.size() != 3 * g.num_points) return;
    for (std::size_t i = 0; i < g.num_points; ++i)
      if (!g.active[i]) normals[3 * i] = normals[3 * i + 1] = normals[3 * i + 2] = nan;
  };
  mark(result.normals);
  for (std::vector<float>& normals : result.iteration_normals) mark(normals);
  if (result.curvature.size() == g.num_points)
    for (std::size_t i = 0; i < g.num_points; ++i)
      if (!g.active[i]) result.curvature[i] = nan;
}

}  // namespace detail
}  // namespace pcl_dise
