// Times the CUDA path end to end on a synthetic wavy surface of N points, k = 64: the k-NN search,
// iteration 0 and the DISE iterations on the GPU (uploads and downloads included; the edge
// scale on the CPU), and checks a sample of the GPU's neighbourhoods against the CPU's grid search.
// Plain C++ on raw arrays, builds with CUDA and CMake alone.
// Usage: cuda_bench [points = 1000000] [iterations = 4] [repeats = 3]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "dise_cuda.h"
#include "pcl_dise/core/forward.h"
#include "pcl_dise/core/grid_search.h"
#include "pcl_dise/core/model.h"
#include "wavy_surface.h"

namespace {
using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const int iterations = argc > 2 ? std::atoi(argv[2]) : 4, repeats = argc > 3 ? std::atoi(argv[3]) : 3;
  if (!pcl_dise::cuda::deviceAvailable()) {
    std::printf("no CUDA device\n");
    return 77;
  }
  const std::vector<float> points = pcl_dise::bench::wavySurface(n, 1);
  std::vector<std::int32_t> rows(65 * n);
  pcl_dise::cuda::nearestNeighbors(points.data(), std::min<std::size_t>(n, 1000), 65, rows.data());  // warm-up
  auto t = Clock::now();
  const int row = pcl_dise::cuda::nearestNeighbors(points.data(), n, 65, rows.data());
  const double search = secondsSince(t);
  pcl_dise::Neighborhoods knn;
  knn.indices = std::move(rows);
  knn.indices.resize(n * row);
  knn.offsets.resize(n + 1);
  for (std::size_t i = 0; i <= n; ++i) knn.offsets[i] = static_cast<std::int64_t>(i * row);
  {  // a sample of rows against the CPU's search: the same squared distances
    const pcl_dise::GridSearch cpu = pcl_dise::GridSearch::forNearest(points.data(), n, row);
    std::vector<std::int32_t> expected;
    std::vector<float> expected_d2;
    const std::size_t stride = std::max<std::size_t>(1, n / 1000);
    int differ = 0;
    for (std::size_t i = 0; i < n; i += stride) {
      auto d2 = [&](std::int32_t o) {
        double s = 0;
        for (int c = 0; c < 3; ++c) {
          const double e = double(points[3 * std::size_t(o) + c]) - points[3 * i + c];
          s += e * e;
        }
        return s;
      };
      cpu.nearest(&points[3 * i], row, expected, expected_d2);
      for (int j = 0; j < row; ++j) {
        const double reference = d2(expected[j]);
        if (std::fabs(d2(knn.indices[i * row + j]) - reference) > 1e-6 * (1 + reference)) ++differ;
      }
    }
    std::printf("k-NN check against the CPU grid search on every %zu-th point: %d entries differ\n", stride, differ);
  }
  t = Clock::now();
  const float edge_scale = pcl_dise::edgeScale(points.data(), knn.truncated(n, 17));
  const double scale = secondsSince(t);
  t = Clock::now();
  const pcl_dise::cuda::IterationZero zero = pcl_dise::cuda::iterationZero(points.data(), n, knn.indices.data(), row);
  const double prepare = secondsSince(t);
  std::printf(
      "k-NN search on the GPU (upload, grid, search, download) %.4f s, edge scale (CPU, 1 thread) %.4f s, "
      "iteration 0 + pruning on the GPU (transfers included) %.4f s\n",
      search, scale, prepare);
  const std::vector<float> parameters = pcl_dise::packParameters(pcl_dise::randomModel(1));
  const pcl_dise::cuda::Graph graph{points.data(),     n, edge_scale, zero.offsets.data(), zero.indices.data(),
                                    zero.active.data()};
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    std::vector<float> normals = zero.normals, curvature = zero.curvature, weights = zero.initial_weights;
    pcl_dise::cuda::State state{normals.data(), weights.data(), curvature.data()};
    t = Clock::now();
    pcl_dise::cuda::runIterations(parameters.data(), graph, iterations, state);
    const double s = secondsSince(t);
    std::printf("run %d: %.4f s\n", r + 1, s);
    if (r > 0 || repeats == 1) best = std::min(best, s);
  }
  const double total = search + scale + prepare + best;
  std::printf(
      "points %zu, k 64, L %d: k-NN search (GPU) %.4f s + edge scale (CPU) %.4f s + iteration 0 (GPU) %.4f s + "
      "DISE iterations (GPU, transfers included, best warm run) %.4f s = end to end %.4f s\n",
      n, iterations, search, scale, prepare, best, total);
  return 0;
}
