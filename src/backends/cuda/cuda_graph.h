#pragma once
// Internal: the CUDA kernels' view of a prepared graph (no copies; `graph` must outlive it).
#include "dise_cuda.h"
#include "iteration_zero.h"

namespace pcl_dise {
namespace detail {

inline cuda::Graph toCudaGraph(const PreparedGraph& graph) {
  return {graph.points,
          graph.num_points,
          graph.edge_scale,
          graph.edge_scales,
          graph.neighborhoods.offsets.data(),
          graph.neighborhoods.indices.data(),
          graph.active.data()};
}

}  // namespace detail
}  // namespace pcl_dise
