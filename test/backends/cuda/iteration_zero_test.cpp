// Iteration 0 on the GPU against the CPU's prepareGraph on the same neighbourhoods: the same
// active points, neighbourhoods of the iterations and initial weights, normals and curvature up to
// float rounding, on a surface with a cluster of coincident points (fits that degenerate, their
// points kept in their neighbours' rows). Plain C++ on raw arrays; exit code 77 (skipped) without a GPU.
#include <cmath>
#include <cstdio>
#include <vector>

#include "device_present.h"
#include "dise_cuda.h"
#include "iteration_zero.h"
#include "pcl_dise/core/angle_error.h"
#include "pcl_dise/core/grid_search.h"
#include "wavy_surface.h"

int main() {
  std::string why;
  if (!pcl_dise::cuda::deviceAvailable(&why)) return pcl_dise::test::cannotRun(why);
  std::vector<float> points = pcl_dise::bench::wavySurface(20000, 5);
  for (int i = 0; i < 40; ++i) points.insert(points.end(), {3.f, 3.f, 3.f});  // degenerate cluster
  const std::size_t m = points.size() / 3;
  const pcl_dise::Neighborhoods knn = pcl_dise::nearestNeighborGraph(points.data(), m, 33);
  pcl_dise::ForwardInput input;
  input.points = points.data();
  input.num_points = m;
  input.neighborhoods = &knn;
  input.edge_scale = 1.f;
  const pcl_dise::detail::PreparedGraph cpu = pcl_dise::detail::prepareGraph(input, 0);
  const pcl_dise::cuda::IterationZero gpu = pcl_dise::cuda::iterationZero(points.data(), m, knn.indices.data(), 33);

  int bad = 0;
  double worst_angle = 0;
  for (std::size_t i = 0; i < m; ++i) {
    if (gpu.active[i] != cpu.active[i]) ++bad;
    if (!cpu.active[i]) {
      if (!std::isnan(gpu.normals[3 * i]) || !std::isnan(gpu.curvature[i])) ++bad;
      continue;
    }
    // The angle of unorientedAngleDegrees (lengths divided out: acos of a plain dot product of
    // two float-rounded unit vectors reads their length error, up to 0.03 degrees, as an angle),
    // and the same sign rule.
    double dot = 0;
    for (int c = 0; c < 3; ++c) dot += double(gpu.normals[3 * i + c]) * cpu.normals[3 * i + c];
    if (dot <= 0) ++bad;
    worst_angle = std::max(worst_angle, pcl_dise::unorientedAngleDegrees(&gpu.normals[3 * i], &cpu.normals[3 * i]));
    if (std::fabs(gpu.curvature[i] - cpu.curvature[i]) > 1e-5f) ++bad;
  }
  if (gpu.offsets != cpu.neighborhoods.offsets || gpu.indices != cpu.neighborhoods.indices ||
      gpu.initial_weights != cpu.initial_weights)
    ++bad;
  std::size_t inactive = 0;
  for (auto a : cpu.active) inactive += a == 0;
  std::printf("%zu points, %zu inactive on the CPU; %d mismatches, worst normal angle %.2e deg\n", m, inactive, bad,
              worst_angle);
  const bool ok = bad == 0 && worst_angle < 1e-3 && inactive >= 40;
  std::printf(ok ? "PASSED\n" : "FAILED\n");
  return ok ? 0 : 1;
}
