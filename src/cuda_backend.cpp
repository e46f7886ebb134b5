// Backend::Cuda: the prepared graph handed to the raw-array CUDA kernels in cuda/.
#include "cuda_graph.h"

namespace pcl_dise {
namespace detail {

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

}  // namespace detail
}  // namespace pcl_dise
