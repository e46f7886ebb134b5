#pragma once
// The CUDA backend on raw arrays: no PCL, no Eigen, no LibTorch, so that it builds with CUDA and
// CMake alone. pcl_dise's forward pass (Backend::Cuda) and the CUDA test and benchmark call it.
#include <cstddef>
#include <cstdint>

#include <vector>

#include "pcl_dise/core/network_shape.h"

namespace pcl_dise {
namespace cuda {

/** The network's 7,981 parameters, packed in this order: for each MLP of docs/algorithm.md (layer1,
 *  layerg, layer2, layerg2, layer3, layerg3, layer4) its first weight (hidden x in, row-major),
 *  first bias (hidden), second weight (out x hidden), second bias (out). */
constexpr int kParameterCount = kNumParameters;

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

/** Iteration 0 and the pruned neighbourhoods, as pcl_dise's prepareGraph leaves them. */
struct IterationZero {
  std::vector<float> normals;          // M x 3 (sign rule applied), NaN where inactive
  std::vector<float> curvature;        // M, NaN where inactive
  std::vector<std::uint8_t> active;    // M: 1 where the DISE iterations compute a normal
  std::vector<std::int64_t> offsets;   // M + 1 over indices: the neighbourhoods without inactive points
  std::vector<std::int32_t> indices;   // E
  std::vector<float> initial_weights;  // E: 1 / (K_i - 1)
};

/** Iteration 0 on the current CUDA device for neighbourhoods of `row` points each (neighbors:
 *  M x row, e.g. from nearestNeighbors): PCA per point; a point whose fit degenerates, or whose
 *  neighbourhood keeps fewer than 3 points with a normal, takes no part, until nothing changes.
 *  Throws std::invalid_argument for indices out of range, std::runtime_error on CUDA errors. */
IterationZero iterationZero(const float* points, std::size_t num_points, const std::int32_t* neighbors, int row);

/** Whether a CUDA device can be used (false without a driver or a GPU). */
bool deviceAvailable();

}  // namespace cuda
}  // namespace pcl_dise
