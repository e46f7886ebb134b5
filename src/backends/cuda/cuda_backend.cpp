// Backend::Cuda: the prepared graph handed to the raw-array CUDA kernels in this folder. Built into
// libpcl_dise_cuda_backend, which registers the backend as it loads (backend_registry.h).
#include "backend_registry.h"
#include "cuda_graph.h"

namespace pcl_dise {
namespace detail {
namespace {

bool cudaDeviceAvailable() { return cuda::deviceAvailable(); }

void runCudaIterations(const Model& model, PreparedGraph& g, const ForwardOptions& options, ForwardResult& result) {
  const std::vector<float> parameters = packParameters(model);
  const cuda::Graph graph = toCudaGraph(g);
  startingState(g, result.normals, result.curvature);
  result.kernel_weights = std::move(g.initial_weights);
  cuda::State state{result.normals.data(), result.kernel_weights.data(), result.curvature.data()};
  std::vector<float> per_iteration(options.keep_iterations ? options.iterations * 3 * g.num_points : 0);
  cuda::runIterations(parameters.data(), graph, options.iterations, state,
                      options.keep_iterations ? per_iteration.data() : nullptr);
  for (int it = 0; options.keep_iterations && it < options.iterations; ++it)
    result.iteration_normals.emplace_back(per_iteration.begin() + std::size_t(it) * 3 * g.num_points,
                                          per_iteration.begin() + std::size_t(it + 1) * 3 * g.num_points);
}

const bool registered = (registerBackend(Backend::Cuda, {runCudaIterations, cudaDeviceAvailable}), true);

}  // namespace
}  // namespace detail
}  // namespace pcl_dise

// Linking pcl_dise::cuda_backend statically pulls this in (-u), so that its registration runs.
extern "C" const bool pcl_dise_cuda_backend_registered = pcl_dise::detail::registered;
