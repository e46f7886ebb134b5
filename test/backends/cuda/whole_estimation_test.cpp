// The whole estimation on the GPU (runForward from a search with Backend::Cuda: search, edge
// scale, iteration 0 and iterations on the device) against the native backend on the CPU: k
// nearest (k + 1 >= 17 and < 17), radius with and without a cap, a searched subset in a tie order
// with extra query points, neighbourhoods given instead of a search, the adaptive mode, kept
// iterations, a model of the local edge scale; the edge scale to the bit; running
// out of device memory is an exception that leaves the device usable. Plain C++ (no PCL, no
// GoogleTest), so that it runs where the GPU is; exit code 77 (skipped) without a GPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_present.h"
#include "dise_cuda.h"
#include "pcl_dise/core/angle_error.h"
#include "pcl_dise/core/edge_scale.h"
#include "pcl_dise/core/forward.h"
#include "pcl_dise/core/grid_search.h"
#include "pcl_dise/core/model.h"
#include "wavy_surface.h"

namespace {

int failures = 0;

void expect(bool ok, const std::string& what) {
  std::printf("  %s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

// p99 and worst unoriented angle between two normal sets, NaN at the same points, signs equal.
void compare(const std::string& name, const pcl_dise::ForwardResult& gpu, const pcl_dise::ForwardResult& cpu,
             double p99_limit) {
  std::vector<double> angles;
  std::size_t nan_mismatch = 0, sign_mismatch = 0;
  const std::size_t m = cpu.normals.size() / 3;
  for (std::size_t i = 0; i < m; ++i) {
    const float* a = &gpu.normals[3 * i];
    const float* b = &cpu.normals[3 * i];
    if (std::isnan(a[0]) || std::isnan(b[0])) {
      nan_mismatch += std::isnan(a[0]) != std::isnan(b[0]);
      continue;
    }
    const double dot = double(a[0]) * b[0] + double(a[1]) * b[1] + double(a[2]) * b[2];
    sign_mismatch += dot < 0;
    angles.push_back(pcl_dise::unorientedAngleDegrees(a, b));
  }
  std::sort(angles.begin(), angles.end());
  const double p99 = angles.empty() ? 0 : angles[angles.size() * 99 / 100];
  const double worst = angles.empty() ? 0 : angles.back();
  char line[300];
  std::snprintf(line, sizeof line, "%s: %zu points, p99 %.4f deg, max %.4f deg, %zu NaN and %zu sign mismatches",
                name.c_str(), m, p99, worst, nan_mismatch, sign_mismatch);
  expect(p99 <= p99_limit && nan_mismatch == 0 && sign_mismatch == 0 && !angles.empty(), line);
}

pcl_dise::ForwardResult run(const pcl_dise::Model& model, const std::vector<float>& points,
                            const pcl_dise::NeighborSearch& search, pcl_dise::Backend backend, double settle = 0,
                            bool keep = false) {
  pcl_dise::ForwardInput input;
  input.points = points.data();
  input.num_points = points.size() / 3;
  input.search = &search;
  pcl_dise::ForwardOptions options;
  options.settle_degrees = settle;
  options.keep_iterations = keep;
  return pcl_dise::runForward(model, input, options, backend);
}

void compareBackends(const std::string& name, const pcl_dise::Model& model, const std::vector<float>& points,
                     const pcl_dise::NeighborSearch& search, double settle = 0) {
  const pcl_dise::ForwardResult cpu = run(model, points, search, pcl_dise::Backend::Native, settle);
  const pcl_dise::ForwardResult gpu = run(model, points, search, pcl_dise::Backend::Cuda, settle);
  compare(name, gpu, cpu, settle > 0 ? 0.1 : 0.05);
  expect(gpu.kernel_neighborhoods.offsets == cpu.kernel_neighborhoods.offsets &&
             gpu.kernel_neighborhoods.indices == cpu.kernel_neighborhoods.indices,
         name + ": the iterations' neighbourhoods are the CPU's, index for index");
}

}  // namespace

int main(int argc, char** argv) {
  std::string why;
  if (!pcl_dise::backendAvailable(pcl_dise::Backend::Cuda, &why)) return pcl_dise::test::cannotRun(why);
  const std::string model_path = argc > 1 ? argv[1] : pcl_dise::defaultModelPath(64);
  const pcl_dise::Model model = pcl_dise::loadModel(model_path);
  const std::vector<float> points = pcl_dise::bench::wavySurface(200000, 11);
  const std::size_t m = points.size() / 3;

  pcl_dise::NeighborSearch knn;
  knn.k = 65;
  compareBackends("k = 64", model, points, knn);
  pcl_dise::NeighborSearch few;
  few.k = 9;
  compareBackends("k = 8 (fewer than the edge scale's 17)", model, points, few);
  pcl_dise::NeighborSearch capped;
  capped.radius = 0.03f;
  capped.max_neighbors = 48;
  compareBackends("radius, at most 48", model, points, capped);
  pcl_dise::NeighborSearch within;
  within.radius = 0.02f;
  compareBackends("radius, uncapped", model, points, within);
  compareBackends("k = 64, adaptive (settle 1 deg)", model, points, knn, 1.0);
  // The same model read with the local edge scale (each point's own s, docs/algorithm.md).
  pcl_dise::Model local_model = model;
  pcl_dise::setEdgeScaleRule(local_model, pcl_dise::EdgeScaleRule::Local);
  compareBackends("k = 64, local edge scale", local_model, points, knn);
  compareBackends("radius, at most 48, local edge scale", local_model, points, capped);

  // A searched subset in a tie order of its own, and query points beyond it.
  std::vector<float> with_queries = points;
  const std::vector<float> queries = pcl_dise::bench::wavySurface(5000, 12);
  with_queries.insert(with_queries.end(), queries.begin(), queries.end());
  std::vector<std::int32_t> reversed(m);
  std::iota(reversed.rbegin(), reversed.rend(), 0);
  pcl_dise::NeighborSearch subset;
  subset.k = 65;
  subset.num_searched = m;
  subset.tie_order = reversed.data();
  compareBackends("searched subset in tie order, 5,000 query points", model, with_queries, subset);

  // Only some points asked: the search on the CPU, the rest on the GPU.
  std::vector<std::uint8_t> every_other(m, 0);
  for (std::size_t i = 0; i < m; i += 2) every_other[i] = 1;
  pcl_dise::NeighborSearch some = knn;
  some.queried = every_other.data();
  compareBackends("every other point asked", model, points, some);

  // Neighbourhoods found elsewhere (a user's search method, a tile): uploaded, the rest on the GPU.
  {
    const pcl_dise::Neighborhoods given = pcl_dise::nearestNeighborGraph(points.data(), m, 33);
    pcl_dise::ForwardInput input;
    input.points = points.data();
    input.num_points = m;
    input.neighborhoods = &given;
    const pcl_dise::ForwardOptions options;
    const pcl_dise::ForwardResult cpu = pcl_dise::runForward(model, input, options, pcl_dise::Backend::Native);
    const pcl_dise::ForwardResult gpu = pcl_dise::runForward(model, input, options, pcl_dise::Backend::Cuda);
    compare("given neighbourhoods (k = 32)", gpu, cpu, 0.05);
  }

  // Kept iterations: L + 1 sets, the PCA of iteration 0 first.
  const pcl_dise::ForwardResult kept_gpu = run(model, points, knn, pcl_dise::Backend::Cuda, 0, true);
  const pcl_dise::ForwardResult kept_cpu = run(model, points, knn, pcl_dise::Backend::Native, 0, true);
  expect(kept_gpu.iteration_normals.size() == 5, "kept iterations: 5 sets");
  if (kept_gpu.iteration_normals.size() == 5) {
    pcl_dise::ForwardResult zero_gpu, zero_cpu;
    zero_gpu.normals = kept_gpu.iteration_normals[0];
    zero_cpu.normals = kept_cpu.iteration_normals[0];
    compare("iteration 0 of the kept iterations", zero_gpu, zero_cpu, 0.001);
  }

  // The edge scale to the bit: the device's terms summed exactly give the CPU's value.
  {
    pcl_dise::cuda::DeviceEstimation device(points.data(), m, m, nullptr);
    device.searchNearest(65);
    std::size_t entries = 0;
    const std::vector<double> terms = device.edgeScaleTerms(&entries);
    const float gpu_scale = pcl_dise::edgeScaleFromTerms(terms.data(), terms.size(), entries);
    const float cpu_scale = pcl_dise::edgeScale(points.data(), m, 0);
    char line[200];
    std::snprintf(line, sizeof line, "edge scale %.9g on the device, %.9g on the CPU", gpu_scale, cpu_scale);
    expect(gpu_scale == cpu_scale, line);
  }

  // Out of device memory: an exception that says so; the device works afterwards.
  {
    std::vector<void*> held;
    std::size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    for (std::size_t chunk = std::size_t(1) << 30; chunk >= (std::size_t(1) << 20);) {
      void* p = nullptr;
      if (cudaMalloc(&p, chunk) == cudaSuccess)
        held.push_back(p);
      else
        cudaGetLastError(), chunk /= 2;
    }
    std::string message;
    try {
      run(model, points, knn, pcl_dise::Backend::Cuda);
    } catch (const std::runtime_error& e) {
      message = e.what();
    }
    for (void* p : held) cudaFree(p);
    expect(message.find("out of device memory") != std::string::npos,
           "with the device's memory taken: \"" + message + "\"");
    const pcl_dise::ForwardResult again = run(model, points, few, pcl_dise::Backend::Cuda);
    expect(again.normals.size() == 3 * m && !std::isnan(again.normals[0]), "the device works again afterwards");
  }

  std::printf(failures == 0 ? "PASSED\n" : "FAILED (%d)\n", failures);
  return failures == 0 ? 0 : 1;
}
