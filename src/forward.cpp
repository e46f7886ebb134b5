#include "pcl_dise/forward.h"

#include <stdexcept>
#include <utility>

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

namespace detail {

#ifndef PCL_DISE_WITH_CUDA
bool cudaDeviceAvailable() { return false; }
void runCudaIterations(const Model&, PreparedGraph&, const ForwardOptions&, ForwardResult&) {
  throw std::runtime_error("the cuda backend is not part of this build (configure with CUDA available)");
}
#endif

#ifndef PCL_DISE_WITH_TORCH
void runTorchIterations(const Model&, PreparedGraph&, const ForwardOptions&, ForwardResult&) {
  throw std::runtime_error("the torch backend is not part of this build (configure with PCL_DISE_WITH_TORCH=ON)");
}
#endif

}  // namespace detail

ForwardResult runForward(const Model& model, const ForwardInput& input, const ForwardOptions& options,
                         Backend backend) {
  if (options.iterations < 0) throw std::invalid_argument("forward pass: iterations must be >= 0");
  if (!(options.settle_degrees >= 0)) throw std::invalid_argument("forward pass: settle_degrees must be >= 0");
  if (options.settle_degrees > 0 && backend != Backend::Native)
    throw std::invalid_argument("forward pass: the adaptive mode (settle_degrees > 0) runs on the native backend only");
  if (input.num_points > 0 && (input.points == nullptr || input.neighborhoods == nullptr))
    throw std::invalid_argument("forward pass: points and neighbourhoods are required");
  if (input.neighborhoods == nullptr) return {};
  detail::PreparedGraph graph = detail::prepareGraph(input, options.threads);

  ForwardResult result;
  if (options.keep_iterations) result.iteration_normals.push_back(graph.normals);
  if (options.iterations == 0) {
    result.normals = std::move(graph.normals);
    result.curvature = std::move(graph.curvature);
    result.kernel_neighborhoods = std::move(graph.neighborhoods);
    result.kernel_weights = std::move(graph.initial_weights);
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
