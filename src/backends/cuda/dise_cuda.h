#pragma once
// The CUDA backend on raw arrays: no PCL, no Eigen, no LibTorch, so that it builds with CUDA and
// CMake alone. pcl_dise's forward pass (Backend::Cuda) and the CUDA test and benchmark call it.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "pcl_dise/core/network_shape.h"

namespace pcl_dise {
namespace cuda {

/** Thrown where the device has too little memory for a stage; says what was asked and what is free. */
struct OutOfDeviceMemory : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/** The network's 7,981 parameters, packed in this order: for each MLP of docs/algorithm.md (layer1,
 *  layerg, layer2, layerg2, layer3, layerg3, layer4) its first weight (hidden x in, row-major),
 *  first bias (hidden), second weight (out x hidden), second bias (out). */
constexpr int kParameterCount = kNumParameters;

/** The most points a neighbourhood holds on the GPU: a search's candidate list and an iteration's
 *  edges (32 per lane of a warp) live in registers and local memory of this size. */
constexpr int kMaxNeighborhood = 1024;

/** Iteration 0 done and the neighbourhoods of the iterations set, as pcl_dise's prepareGraph leaves them. */
struct Graph {
  const float* points = nullptr;          // M x 3
  std::size_t num_points = 0;             // M
  float edge_scale = 1.f;                 // s
  const float* edge_scales = nullptr;     // M or nullptr: each point's s (the local rule), read instead
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
 *  receives iterations x M x 3 normals (after iteration 1..L). settle_cos: the adaptive mode's
 *  cosine (adaptive_mode.h), NaN for every point every iteration. Neighbourhoods of up to 1,024
 *  points. Throws std::runtime_error on CUDA errors (no device, out of memory) and for larger
 *  neighbourhoods. */
void runIterations(const float* parameters, const Graph& graph, int iterations, State& state,
                   float* iteration_normals = nullptr, float settle_cos = std::numeric_limits<float>::quiet_NaN());

/** The k nearest points of every point (itself included) by a uniform grid on the current CUDA
 *  device (grid_knn.h). points: M x 3, finite; neighbors: M x min(k, M), each row nearest first,
 *  ties by smaller index. Returns min(k, M). Throws std::invalid_argument for non-finite points
 *  or k outside 1 .. kMaxNeighborhood, std::runtime_error on CUDA errors. */
int nearestNeighbors(const float* points, std::size_t num_points, int k, std::int32_t* neighbors);

/** Iteration 0 and the neighbourhoods of the iterations, as pcl_dise's prepareGraph leaves them. */
struct IterationZero {
  std::vector<float> normals;          // M x 3 (sign rule applied), NaN where inactive
  std::vector<float> curvature;        // M, NaN where inactive
  std::vector<std::uint8_t> active;    // M: 1 where the DISE iterations compute a normal
  std::vector<std::int64_t> offsets;   // M + 1 over indices: whole neighbourhoods of active points, none for others
  std::vector<std::int32_t> indices;   // E
  std::vector<float> initial_weights;  // E: 1 / (K_i - 1)
};

/** Iteration 0 on the current CUDA device for neighbourhoods of `row` points each (neighbors:
 *  M x row, e.g. from nearestNeighbors): PCA per point; a point whose fit degenerates, or whose
 *  neighbourhood keeps fewer than 3 points with a normal, takes no part, until nothing changes.
 *  Throws std::invalid_argument for indices out of range, std::runtime_error on CUDA errors. */
IterationZero iterationZero(const float* points, std::size_t num_points, const std::int32_t* neighbors, int row);

/** Whether a CUDA device can be used (false without a driver or a GPU), with the CUDA error that
 *  says why not in *why. Where one can, its context is created here, once per process, with every
 *  kernel loaded (CUDA_MODULE_LOADING=EAGER unless the environment says otherwise), so that the
 *  first stage timed after this call includes neither. Call it before any other CUDA call. */
bool deviceAvailable(std::string* why = nullptr);

/** Throws std::runtime_error, with deviceAvailable's reason, where no CUDA device can be used. */
void requireDevice();

/** One whole estimation on the current CUDA device, stage by stage, its data kept there from the
 *  upload of the points to the download of the results. The stages, in order: one search, the
 *  edge-scale terms (where the caller has no edge scale), iteration 0, the iterations; then the
 *  results. Every stage throws OutOfDeviceMemory where the device's memory runs out and
 *  std::runtime_error on other CUDA errors. */
class DeviceEstimation {
 public:
  /** Uploads the points.
   *  \param[in] points M x 3 row-major, finite
   *  \param[in] num_points M (< 2^31 / 3)
   *  \param[in] num_searched the first num_searched points are searched among (1 .. M)
   *  \param[in] tie_order num_searched indices, a permutation of 0 .. num_searched - 1: where distances
   *    tie, the point listed first comes first; nullptr: the smaller index first */
  DeviceEstimation(const float* points, std::size_t num_points, std::size_t num_searched,
                   const std::int32_t* tie_order);
  ~DeviceEstimation();
  DeviceEstimation(const DeviceEstimation&) = delete;
  DeviceEstimation& operator=(const DeviceEstimation&) = delete;

  /** Every point's k nearest searched points (itself included where searched), nearest first;
   *  also keeps each searched point's 17 nearest for edgeScaleTerms. k: 1 .. kMaxNeighborhood. */
  void searchNearest(std::size_t k);
  /** The neighbourhoods of every point given instead of searched: offsets (M + 1, from 0, not
   *  decreasing), indices (offsets[M] entries in 0 .. M - 1), as checkForwardInput checks them. */
  void useNeighborhoods(const std::int64_t* offsets, const std::int32_t* indices);
  /** Every point's searched points closer than the radius (squared distance < radius2, the
   *  square of radius formed in double, then float), nearest first, the nearest max_neighbors
   *  of them (0: all). Throws std::runtime_error where a neighbourhood would exceed 1,024 points. */
  void searchWithin(float radius, float radius2, int max_neighbors);
  /** Per searched point, its term of the edge-scale statistic over its 17 nearest (edgeScaleTerm
   *  of edge_scale.h, the same bits as on the CPU); *entries: the neighbours read in all. */
  std::vector<double> edgeScaleTerms(std::size_t* entries);
  /** Iteration 0: PCA per point and the neighbourhoods of the iterations, by the rules of iterationZero. */
  void iterationZero();
  /** The DISE iterations. parameters: kParameterCount floats (packed as above); edge_scales: M
   *  host values, each point's s (the local rule), or nullptr for edge_scale; settle_cos: the
   *  adaptive mode's cosine (adaptive_mode.h), NaN for every point every iteration;
   *  iteration_normals: iterations x M x 3 or nullptr; after_each(it) after iteration it (1 .. L):
   *  false stops (returns false). */
  bool iterate(const float* parameters, float edge_scale, const float* edge_scales, int iterations, float settle_cos,
               float* iteration_normals, const std::function<bool(int)>& after_each);

  /** The normals (M x 3, NaN where none) and curvature (M) as the last stage left them. */
  void results(float* normals, float* curvature) const;
  /** The neighbourhoods of the iterations (offsets: M + 1, indices) and their kernel weights. */
  void kernelNeighborhoods(std::vector<std::int64_t>& offsets, std::vector<std::int32_t>& indices,
                           std::vector<float>& weights) const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace cuda
}  // namespace pcl_dise
