#include "pcl_dise/forward.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <omp.h>

#include "pcl_dise/plane_fit.h"
#include "prepared_graph.h"

namespace pcl_dise {

std::string toString(Backend backend) {
  switch (backend) {
    case Backend::Native: return "native";
    case Backend::Torch: return "torch";
    case Backend::Cuda: return "cuda";
  }
  return "unknown";
}

Backend backendFromString(const std::string& name) {
  if (name == "native") return Backend::Native;
  if (name == "torch") return Backend::Torch;
  if (name == "cuda") return Backend::Cuda;
  throw std::invalid_argument("unknown backend '" + name + "' (expected native, torch or cuda)");
}

bool backendAvailable(Backend backend) {
  switch (backend) {
    case Backend::Native: return true;
    case Backend::Torch:
#ifdef PCL_DISE_WITH_TORCH
      return true;
#else
      return false;
#endif
    case Backend::Cuda: return detail::cudaDeviceAvailable();
  }
  return false;
}

float edgeScale(const float* points, const Neighborhoods& knn) {
  double sum = 0.0;
  for (std::size_t i = 0; i < knn.numNodes(); ++i) {
    const float* p = points + 3 * i;
    for (const std::int32_t* j = knn.begin(i); j != knn.begin(i) + knn.size(i); ++j) {
      const float* q = points + 3 * static_cast<std::size_t>(*j);
      for (int c = 0; c < 3; ++c) sum += (double(q[c]) - p[c]) * (double(q[c]) - p[c]);
    }
  }
  const double entries = static_cast<double>(knn.numEdges()) * 3.0;
  const double stddev = entries > 0 ? std::sqrt(sum / entries) : 0.0;
  if (!(stddev > 0) || !std::isfinite(stddev)) return 1.f;
  return static_cast<float>(0.2 / stddev);
}

namespace detail {

int resolveThreads(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

PreparedGraph prepareGraph(const ForwardInput& input, int threads) {
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
  if (!std::isfinite(input.edge_scale) || !(input.edge_scale > 0))
    throw std::invalid_argument("forward pass: edge scale must be finite and positive");

  PreparedGraph g;
  g.points = input.points;
  g.num_points = m;
  g.edge_scale = input.edge_scale;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  g.normals.assign(3 * m, nan);
  g.curvature.assign(m, nan);
  g.active.assign(m, 0);

  // Iteration 0: PCA over the full neighbourhoods, as pcl::NormalEstimation does.
#pragma omp parallel for num_threads(resolveThreads(threads)) schedule(dynamic, 256)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(m); ++i) {
    if (full.size(i) < 3) continue;
    float normal[3], curvature;
    if (fitPlane<double>(input.points, input.points + 3 * i, full.begin(i), nullptr, static_cast<int>(full.size(i)),
                        normal, &curvature)) {
      for (int c = 0; c < 3; ++c) g.normals[3 * i + c] = normal[c];
      g.curvature[i] = curvature;
      g.active[i] = 1;
    }
  }

  // Points without a normal leave every neighbourhood; a neighbourhood that falls under 3 points
  // loses its normal in turn, until nothing changes.
  std::vector<std::int32_t> kept;
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t i = 0; i < m; ++i) {
      if (!g.active[i]) continue;
      int count = 0;
      for (const std::int32_t* j = full.begin(i); j != full.begin(i) + full.size(i); ++j) count += g.active[*j];
      if (count < 3) {
        g.active[i] = 0;
        changed = true;
      }
    }
  }
  for (std::size_t i = 0; i < m; ++i) {
    kept.clear();
    if (g.active[i])
      for (const std::int32_t* j = full.begin(i); j != full.begin(i) + full.size(i); ++j)
        if (g.active[*j]) kept.push_back(*j);
    g.neighborhoods.append(kept.data(), kept.size());
    const float w = kept.size() > 1 ? 1.f / static_cast<float>(kept.size() - 1) : 0.f;
    g.initial_weights.insert(g.initial_weights.end(), kept.size(), w);
  }
  return g;
}

#ifndef PCL_DISE_WITH_CUDA
bool cudaDeviceAvailable() { return false; }
void runCudaIterations(const Model&, const PreparedGraph&, const ForwardOptions&, ForwardResult&) {
  throw std::runtime_error("the cuda backend is not part of this build (configure with CUDA available)");
}
#endif

#ifndef PCL_DISE_WITH_TORCH
void runTorchIterations(const Model&, const PreparedGraph&, const ForwardOptions&, ForwardResult&) {
  throw std::runtime_error("the torch backend is not part of this build (configure with PCL_DISE_WITH_TORCH=ON)");
}
#endif

}  // namespace detail

ForwardResult runForward(const Model& model, const ForwardInput& input, const ForwardOptions& options,
                         Backend backend) {
  if (options.iterations < 0) throw std::invalid_argument("forward pass: iterations must be >= 0");
  if (input.num_points > 0 && (input.points == nullptr || input.neighborhoods == nullptr))
    throw std::invalid_argument("forward pass: points and neighbourhoods are required");
  if (input.neighborhoods == nullptr) return {};
  detail::PreparedGraph graph = detail::prepareGraph(input, options.threads);

  ForwardResult result;
  if (options.keep_iterations) result.iteration_normals.push_back(graph.normals);
  if (options.iterations == 0) {
    result.normals = graph.normals;
    result.curvature = graph.curvature;
    result.kernel_neighborhoods = graph.neighborhoods;
    result.kernel_weights = graph.initial_weights;
    return result;
  }
  switch (backend) {
    case Backend::Native: detail::runNativeIterations(model, graph, options, result); break;
    case Backend::Torch: detail::runTorchIterations(model, graph, options, result); break;
    case Backend::Cuda: detail::runCudaIterations(model, graph, options, result); break;
  }
  result.kernel_neighborhoods = std::move(graph.neighborhoods);
  return result;
}

}  // namespace pcl_dise
