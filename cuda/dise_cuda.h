#pragma once
// The CUDA backend on raw arrays: no PCL, no Eigen, no LibTorch, so that it builds with CUDA and
// CMake alone. pcl_dise's forward pass (Backend::Cuda) and the CUDA test and benchmark call it.
#include <cstddef>
#include <cstdint>

namespace pcl_dise {
namespace cuda {

/** The network's 7,981 parameters, packed in this order: for each MLP of ALGORITHM.md (layer1,
 *  layerg, layer2, layerg2, layer3, layerg3, layer4) its first weight (hidden x in, row-major),
 *  first bias (hidden), second weight (out x hidden), second bias (out). */
constexpr int kParameterCount = 7981;

/** Iteration 0 done and the neighbourhoods pruned, as pcl_dise's prepareGraph leaves them. */
struct Graph {
  const float* points = nullptr;          // M x 3
  std::size_t num_points = 0;             // M
  float edge_scale = 1.f;                 // s
  const std::int64_t* offsets = nullptr;  // M + 1: neighbourhood of i is indices[offsets[i] .. offsets[i+1])
  const std::int32_t* indices = nullptr;  // E
  const std::uint8_t* active = nullptr;   // M: 1 where the DISE iterations compute a normal
};

/** State of the iterations, host arrays updated in place. */
struct State {
  float* normals = nullptr;    // M x 3: iteration 0 in (NaN where inactive), the last iteration out
  float* weights = nullptr;    // E: the initial kernel weights in, the last iteration's out
  float* curvature = nullptr;  // M
};

/** Runs `iterations` DISE iterations on the current CUDA device. iteration_normals, if not null,
 *  receives iterations x M x 3 normals (after iteration 1..L). Neighbourhoods of up to 1,024
 *  points. Throws std::runtime_error on CUDA errors (no device, out of memory) and for larger
 *  neighbourhoods. */
void runIterations(const float* parameters, const Graph& graph, int iterations, State& state,
                   float* iteration_normals = nullptr);

/** The k nearest points of every point (itself included) by a uniform grid on the current CUDA
 *  device (grid_knn.h). points: M x 3, finite; neighbors: M x min(k, M), each row nearest first,
 *  ties by smaller index. Returns min(k, M). Throws std::invalid_argument for non-finite points
 *  or k outside 1..1024, std::runtime_error on CUDA errors. */
int nearestNeighbors(const float* points, std::size_t num_points, int k, std::int32_t* neighbors);

/** Whether a CUDA device can be used (false without a driver or a GPU). */
bool deviceAvailable();

}  // namespace cuda
}  // namespace pcl_dise
