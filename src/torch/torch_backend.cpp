// The LibTorch backend of runForward: the DiseNet module on the prepared graph, on the CPU.
#include <limits>

#include "pcl_dise/torch/dise_net.h"
#include "../prepared_graph.h"

namespace pcl_dise {
namespace detail {
void runTorchIterations(const Model& model, const PreparedGraph& g, const ForwardOptions& options,
                        ForwardResult& result) {
  torch::NoGradGuard no_grad;
  if (options.threads > 0) torch::set_num_threads(options.threads);
  DiseNet net(model);
  net->eval();
  const TorchGraph graph = TorchGraph::build(g.points, g.num_points, g.neighborhoods, g.edge_scale);
  const int64_t m = static_cast<int64_t>(g.num_points);
  const torch::Tensor active =
      torch::from_blob(const_cast<std::uint8_t*>(g.active.data()), {m}, torch::kUInt8).to(torch::kBool);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  TorchState state{torch::from_blob(const_cast<float*>(g.normals.data()), {m, 3}, torch::kFloat32).clone(),
                   torch::from_blob(const_cast<float*>(g.initial_weights.data()),
                                    {static_cast<int64_t>(g.initial_weights.size())}, torch::kFloat32)
                       .clone(),
                   torch::from_blob(const_cast<float*>(g.curvature.data()), {m}, torch::kFloat32).clone()};
  state.normals.masked_fill_(active.logical_not().unsqueeze(1), nan);
  for (int iteration = 1; iteration <= options.iterations; ++iteration) {
    state = net->iterate(graph, state);
    state.normals.masked_fill_(active.logical_not().unsqueeze(1), nan);
    if (options.keep_iterations) result.iteration_normals.push_back(toFloatVector(state.normals));
  }
  state.curvature.masked_fill_(active.logical_not(), nan);
  result.normals = toFloatVector(state.normals);
  result.curvature = toFloatVector(state.curvature);
  result.kernel_weights = toFloatVector(state.weights);
}

}  // namespace detail
}  // namespace pcl_dise
