// The native CPU backend: the whole DISE iteration (edge features, the seven MLPs, kernel
// softmax, weighted plane fit: point_network.h) runs on a group of points that follow each other
// along the visit order, one per SIMD lane; OpenMP over groups.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iostream>
#include <limits>
#include <mutex>

#include <omp.h>

#include "iteration_zero.h"
#include "pcl_dise/core/adaptive_mode.h"
#include "point_network.h"

namespace pcl_dise {
namespace detail {

namespace {

// The iterations read positions and normals laid out along the visit order: the points visited
// one after another mostly share their neighbours, so what the network gathers for one point is
// still in cache for the next, whatever order the cloud came in.

// Rows of 3 floats (M x 3) in visit order: row t is row order[t] of `rows`.
std::vector<float> inVisitOrder(const float* rows, const std::vector<std::int32_t>& order) {
  std::vector<float> out(3 * order.size());
  for (std::size_t t = 0; t < order.size(); ++t) std::copy_n(rows + 3 * std::size_t(order[t]), 3, out.data() + 3 * t);
  return out;
}

// The inverse: rows in visit order back in point order.
std::vector<float> inPointOrder(const std::vector<float>& rows, const std::vector<std::int32_t>& order) {
  std::vector<float> out(rows.size());
  for (std::size_t t = 0; t < order.size(); ++t)
    std::copy_n(rows.data() + 3 * t, 3, out.data() + 3 * std::size_t(order[t]));
  return out;
}

// rank[i] = t where order[t] = i.
std::vector<std::int32_t> visitRanks(const std::vector<std::int32_t>& order) {
  std::vector<std::int32_t> rank(order.size());
  for (std::size_t t = 0; t < order.size(); ++t) rank[order[t]] = static_cast<std::int32_t>(t);
  return rank;
}

// Whether order[t] = t for every t: the points already lie in visit order (the feature numbers
// them along the curve before its search), and nothing needs to move.
bool isIdentity(const std::vector<std::int32_t>& order) {
  for (std::size_t t = 0; t < order.size(); ++t)
    if (order[t] != static_cast<std::int32_t>(t)) return false;
  return true;
}

// Every neighbour index j of the lists becomes map[j], in place.
void renumber(Neighborhoods& nb, const std::vector<std::int32_t>& map, int threads) {
  const std::int64_t n = static_cast<std::int64_t>(nb.indices.size());
  std::int32_t* indices = nb.indices.data();
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t e = 0; e < n; ++e) indices[e] = map[indices[e]];
}

// The iterations' progress (forward.h: iteration 0 is the first 1 / (L + 1)), told by thread 0
// (the caller's) at most ten times a second; once the callback answers false, every thread
// skips its remaining groups.
class ProgressReporter {
 public:
  ProgressReporter(const ProgressCallback& progress, int iterations)
      : progress_(progress), iterations_(iterations), stages_(iterations + 1.0) {}
  bool stopped() const { return stop_.load(std::memory_order_relaxed); }
  void report(int iteration, double within) {
    if (!progress_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    if (!progress_(
            {(iteration + within) / stages_, "iterations", std::uint64_t(iteration - 1), std::uint64_t(iterations_)}))
      stop_ = true;
  }

 private:
  const ProgressCallback& progress_;
  int iterations_;
  double stages_;
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::atomic<bool> stop_{false};
};

// The network for `precision`; Bf16 without AVX512_BF16 runs in float and says so, once a process.
const PointNetworkImplementation& networkFor(Precision precision) {
  if (precision == Precision::Bf16 && !bfloat16PointNetwork()) {
    static std::once_flag told;
    std::call_once(told, [] {
      std::cerr << "pcl_dise: precision bf16 needs AVX512_BF16, which this processor lacks (or PCL_DISE_SIMD "
                   "caps): the network runs in float\n";
    });
  }
  return pointNetwork(precision);
}

}  // namespace

void runNativeIterations(const Model& model, PreparedGraph& g, const ForwardOptions& options, ForwardResult& result) {
  const PointNetworkWeights net(model);
  const int threads = resolveThreads(options.threads);
  const std::size_t m = g.num_points;
  Neighborhoods& nb = g.neighborhoods;
  int largest = 0;
  for (std::size_t i = 0; i < m; ++i) largest = std::max(largest, static_cast<int>(nb.size(i)));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> point_order_normals, curvature;
  startingState(g, point_order_normals, curvature);
  // Positions and normals in visit order, neighbour lists renumbered to visit ranks (and back at
  // the end); curvature, weights and flags stay in point order: a point alone reads its own.
  const bool reorder = !isIdentity(g.visit_order);
  const std::vector<float> reordered_points = reorder ? inVisitOrder(g.points, g.visit_order) : std::vector<float>();
  const float* points = reorder ? reordered_points.data() : g.points;
  std::vector<float> normals =
      reorder ? inVisitOrder(point_order_normals.data(), g.visit_order) : std::move(point_order_normals);
  std::vector<float> next_normals(3 * m, nan);
  std::vector<float>().swap(point_order_normals);
  if (reorder) renumber(nb, visitRanks(g.visit_order), threads);
  // A point's kernel weights are read by that point alone, before it writes the new ones: they
  // are updated in place.
  std::vector<float> weights = std::move(g.initial_weights);
  // Adaptive mode: settled[i] once point i's normal turned by less than settle_degrees.
  const float settle_cos = settleCosine(options.settle_degrees);
  std::vector<char> settled(m, 0);
  const PointNetworkImplementation& network = networkFor(options.precision);
  std::vector<std::int64_t> running;  // visit ranks of the points an iteration runs
  running.reserve(m);
  ProgressReporter reporter(options.progress, options.iterations);
  for (int iteration = 1; iteration <= options.iterations; ++iteration) {
    // Settled points, points past their last iteration and points without a normal (read as zero)
    // keep their state.
    running.clear();
    for (std::size_t t = 0; t < m; ++t) {
      const std::int64_t i = g.visit_order[t];
      if (!g.active[i] || settled[i] || (g.last_iteration && iteration > g.last_iteration[i]))
        std::copy_n(normals.data() + 3 * t, 3, next_normals.data() + 3 * t);
      else
        running.push_back(static_cast<std::int64_t>(t));
    }
    const std::int64_t groups =
        (static_cast<std::int64_t>(running.size()) + network.group_size - 1) / network.group_size;
#pragma omp parallel num_threads(threads)
    {
      std::vector<float> scratch(pointGroupScratchFloats(largest));
      std::vector<PointNeighborhood> group(network.group_size);
      std::vector<PointResult> results(network.group_size);
#pragma omp for schedule(dynamic, 4)
      for (std::int64_t q = 0; q < groups; ++q) {
        if (reporter.stopped()) continue;
        if (omp_get_thread_num() == 0) reporter.report(iteration, double(q) / double(groups));
        const std::int64_t first_member = q * network.group_size;
        const int size = static_cast<int>(std::min<std::int64_t>(network.group_size, running.size() - first_member));
        for (int p = 0; p < size; ++p) {
          const std::int64_t t = running[first_member + p], i = g.visit_order[t];
          const std::int64_t first = nb.offsets[i];
          PointNeighborhood& member = group[p];
          member.points = points;
          member.normals = normals.data();
          member.edge_scale = edgeScaleOf(g, static_cast<std::size_t>(i));
          member.center = t;
          member.neighbors = nb.begin(i);
          member.count = static_cast<int>(nb.offsets[i + 1] - first);
          member.previous_weights = weights.data() + first;
          results[p].weights = weights.data() + first;
          results[p].normal = next_normals.data() + 3 * t;
          results[p].curvature = &curvature[i];
        }
        network.function(net, group.data(), size, scratch.data(), results.data());
        for (int p = 0; p < size; ++p) {
          const std::int64_t t = running[first_member + p];
          const float* previous = normals.data() + 3 * t;
          float* normal = next_normals.data() + 3 * t;
          // A degenerate weighted fit keeps the point's previous normal (and curvature).
          if (!results[p].fitted) std::copy_n(previous, 3, normal);
          if (options.settle_degrees > 0 && hasSettled(normal, previous, settle_cos)) settled[g.visit_order[t]] = 1;
        }
      }
    }
    if (reporter.stopped()) throw Cancelled();
    normals.swap(next_normals);
    if (options.keep_iterations)
      result.iteration_normals.push_back(reorder ? inPointOrder(normals, g.visit_order) : normals);
  }
  if (reorder) renumber(nb, g.visit_order, threads);
  result.normals = reorder ? inPointOrder(normals, g.visit_order) : std::move(normals);
  result.curvature = std::move(curvature);
  result.kernel_weights = std::move(weights);
}

}  // namespace detail
}  // namespace pcl_dise
