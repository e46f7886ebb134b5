// The native CPU backend: per point, the whole DISE iteration (edge features, the seven MLPs,
// kernel softmax, weighted plane fit: point_network.h) runs on one neighbourhood held in cache;
// OpenMP over points.
#include <algorithm>
#include <cmath>
#include <limits>

#include "iteration_zero.h"
#include "point_network.h"

namespace pcl_dise {
namespace detail {

namespace {

// Asks for `count` values from `first` on ahead of their use, one request per cache line.
template <typename T>
void prefetch(const T* first, std::int64_t count) {
  constexpr std::int64_t per_line = 64 / sizeof(T);
  for (std::int64_t e = 0; e < count; e += per_line) __builtin_prefetch(first + e);
}

// The state the iterations read at the neighbours, laid out along the visit order: the points
// visited one after another mostly share their neighbours, so what the network gathers for one
// point is still in cache for the next, whatever order the cloud came in.
struct VisitOrderState {
  std::vector<std::int32_t> rank;  // M: rank[i] = t where visit_order[t] = i
  std::vector<float> points;       // M x 3, in visit order

  explicit VisitOrderState(const PreparedGraph& g) : rank(g.num_points), points(3 * g.num_points) {
    for (std::size_t t = 0; t < g.num_points; ++t) {
      const std::int32_t i = g.visit_order[t];
      rank[i] = static_cast<std::int32_t>(t);
      std::copy(g.points + 3 * std::size_t(i), g.points + 3 * std::size_t(i) + 3, points.data() + 3 * t);
    }
  }
  // Rows of 3 floats from point order into visit order (to_visit) or back.
  void permute(const std::vector<float>& from, std::vector<float>& to, bool to_visit) const {
    to.resize(from.size());
    for (std::size_t i = 0; i < rank.size(); ++i) {
      const std::size_t a = 3 * i, b = 3 * std::size_t(rank[i]);
      std::copy_n(from.data() + (to_visit ? a : b), 3, to.data() + (to_visit ? b : a));
    }
  }
  // Neighbour lists from point indices to visit ranks (to_visit) or back, in place.
  void renumber(Neighborhoods& nb, const std::vector<std::int32_t>& visit_order, bool to_visit) const {
    const std::vector<std::int32_t>& map = to_visit ? rank : visit_order;
    for (std::int32_t& j : nb.indices) j = map[j];
  }
};

}  // namespace

void runNativeIterations(const Model& model, PreparedGraph& g, const ForwardOptions& options, ForwardResult& result) {
  const PointNetworkWeights net(model);
  const PointNetworkFunction network = pointNetwork().function;
  const std::size_t m = g.num_points;
  Neighborhoods& nb = g.neighborhoods;
  int largest = 0;
  for (std::size_t i = 0; i < m; ++i) largest = std::max(largest, static_cast<int>(nb.size(i)));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> point_order_normals, curvature;
  startingState(g, point_order_normals, curvature);
  // Normals and positions in visit order, neighbour lists renumbered to match (and back at the
  // end); curvature, weights and flags stay in point order: a point alone reads its own.
  const VisitOrderState visit(g);
  std::vector<float> normals, next_normals(3 * m, nan);
  visit.permute(point_order_normals, normals, true);
  std::vector<float>().swap(point_order_normals);
  visit.renumber(nb, g.visit_order, true);
  // A point's kernel weights are read by that point alone, before it writes the new ones: they
  // are updated in place.
  std::vector<float> weights = std::move(g.initial_weights);
  // Adaptive mode: settled[i] once point i's normal turned by less than settle_degrees.
  const float settle_cos = static_cast<float>(std::cos(options.settle_degrees * M_PI / 180.0));
  std::vector<char> settled(m, 0);
  for (int iteration = 1; iteration <= options.iterations; ++iteration) {
#pragma omp parallel num_threads(resolveThreads(options.threads))
    {
      std::vector<float> scratch(pointNetworkScratchFloats(largest));
#pragma omp for schedule(dynamic, 64)
      for (std::int64_t t = 0; t < static_cast<std::int64_t>(m); ++t) {
        const std::int64_t i = g.visit_order[t];
        // Neighbour lists and weights lie in point order: fetch the next point's now.
        if (t + 1 < static_cast<std::int64_t>(m)) {
          const std::int64_t next = g.visit_order[t + 1];
          prefetch(nb.begin(next), nb.size(next));
          prefetch(weights.data() + nb.offsets[next], nb.size(next));
        }
        float* normal = next_normals.data() + 3 * t;
        if (!g.active[i]) continue;
        const std::int64_t first = nb.offsets[i], last = nb.offsets[i + 1];
        const float* previous = normals.data() + 3 * t;
        if (settled[i] || (g.last_iteration && iteration > g.last_iteration[i])) {
          std::copy(previous, previous + 3, normal);
          continue;
        }
        PointNeighborhood neighborhood;
        neighborhood.points = visit.points.data();
        neighborhood.normals = normals.data();
        neighborhood.edge_scale = g.edge_scale;
        neighborhood.center = t;
        neighborhood.neighbors = nb.begin(i);
        neighborhood.count = static_cast<int>(last - first);
        neighborhood.previous_weights = weights.data() + first;
        // A degenerate weighted fit keeps the point's previous normal (and curvature).
        if (!network(net, neighborhood, scratch.data(), weights.data() + first, normal, &curvature[i]))
          std::copy(previous, previous + 3, normal);
        if (options.settle_degrees > 0 &&
            std::abs(normal[0] * previous[0] + normal[1] * previous[1] + normal[2] * previous[2]) >= settle_cos)
          settled[i] = 1;
      }
    }
    normals.swap(next_normals);
    if (options.keep_iterations) {
      result.iteration_normals.emplace_back();
      visit.permute(normals, result.iteration_normals.back(), false);
    }
  }
  visit.renumber(nb, g.visit_order, false);
  visit.permute(normals, result.normals, false);
  result.curvature = std::move(curvature);
  result.kernel_weights = std::move(weights);
}

}  // namespace detail
}  // namespace pcl_dise
