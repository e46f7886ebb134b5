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

}  // namespace

void runNativeIterations(const Model& model, PreparedGraph& g, const ForwardOptions& options, ForwardResult& result) {
  const PointNetworkWeights net(model);
  const PointNetworkFunction network = pointNetwork().function;
  const std::size_t m = g.num_points;
  const Neighborhoods& nb = g.neighborhoods;
  int largest = 0;
  for (std::size_t i = 0; i < m; ++i) largest = std::max(largest, static_cast<int>(nb.size(i)));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> normals, curvature, next_normals(3 * m, nan);
  startingState(g, normals, curvature);
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
        // Neighbour lists and weights lie in point order, points are visited along a Morton
        // curve: the next point's are far from this one's, so fetch them now.
        if (t + 1 < static_cast<std::int64_t>(m)) {
          const std::int64_t next = g.visit_order[t + 1];
          prefetch(nb.begin(next), nb.size(next));
          prefetch(weights.data() + nb.offsets[next], nb.size(next));
        }
        float* normal = next_normals.data() + 3 * i;
        if (!g.active[i]) continue;
        const std::int64_t first = nb.offsets[i], last = nb.offsets[i + 1];
        const float* previous = normals.data() + 3 * i;
        if (settled[i] || (g.last_iteration && iteration > g.last_iteration[i])) {
          std::copy(previous, previous + 3, normal);
          continue;
        }
        const PointNeighborhood neighborhood{g.points,
                                             normals.data(),
                                             g.edge_scale,
                                             i,
                                             nb.begin(i),
                                             static_cast<int>(last - first),
                                             weights.data() + first};
        // A degenerate weighted fit keeps the point's previous normal (and curvature).
        if (!network(net, neighborhood, scratch.data(), weights.data() + first, normal, &curvature[i]))
          std::copy(previous, previous + 3, normal);
        if (options.settle_degrees > 0 &&
            std::abs(normal[0] * previous[0] + normal[1] * previous[1] + normal[2] * previous[2]) >= settle_cos)
          settled[i] = 1;
      }
    }
    normals.swap(next_normals);
    if (options.keep_iterations) result.iteration_normals.push_back(normals);
  }
  result.normals = std::move(normals);
  result.curvature = std::move(curvature);
  result.kernel_weights = std::move(weights);
}

}  // namespace detail
}  // namespace pcl_dise
