// Iteration 0 on the GPU, by the rules of pcl_dise's prepareGraph (iteration_zero.cpp): plain
// PCA per point with the shared plane fit, then points without a normal leave every
// neighbourhood, rounds until no neighbourhood falls under 3 points, then the pruned
// neighbourhoods are compacted with their initial weights 1 / (K_i - 1).
#include <thrust/execution_policy.h>
#include <thrust/scan.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "device_array.cuh"
#include "dise_cuda.h"
#include "pcl_dise/core/plane_fit.h"

namespace pcl_dise {
namespace cuda {
namespace {

__global__ void fitKernel(const float* points, std::int32_t m, const std::int32_t* neighbors, int row, float* normals,
                          float* curvature, std::uint8_t* active) {
  const std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  float normal[3] = {NAN, NAN, NAN}, c = NAN;
  const bool ok = row >= 3 && fitPlane<double>(points, points + 3 * std::int64_t(i), neighbors + std::int64_t(i) * row,
                                               static_cast<const float*>(nullptr), row, normal, &c);
  for (int a = 0; a < 3; ++a) normals[3 * std::int64_t(i) + a] = ok ? normal[a] : NAN;
  curvature[i] = ok ? c : NAN;
  active[i] = ok ? 1 : 0;
}

// One pruning round, decided on the last round's state: kept[i] = active neighbours of an active
// point (0 for inactive ones); *changed where one falls under 3.
__global__ void countKept(std::int32_t m, const std::int32_t* neighbors, int row, const std::uint8_t* active,
                          std::int64_t* kept, int* changed) {
  const std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  std::int64_t count = 0;
  if (active[i])
    for (int e = 0; e < row; ++e) count += active[neighbors[std::int64_t(i) * row + e]];
  kept[i] = count;
  if (active[i] && count < 3) *changed = 1;
}

__global__ void dropSmall(std::int32_t m, const std::int64_t* kept, std::uint8_t* active, float* normals,
                          float* curvature) {
  const std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || !active[i] || kept[i] >= 3) return;
  active[i] = 0;
  for (int a = 0; a < 3; ++a) normals[3 * std::int64_t(i) + a] = NAN;
  curvature[i] = NAN;
}

__global__ void compact(std::int32_t m, const std::int32_t* neighbors, int row, const std::uint8_t* active,
                        const std::int64_t* offsets, std::int32_t* indices, float* weights) {
  const std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || !active[i]) return;
  std::int64_t out = offsets[i];
  const std::int64_t count = offsets[i + 1] - out;
  for (int e = 0; e < row; ++e) {
    const std::int32_t j = neighbors[std::int64_t(i) * row + e];
    if (active[j]) {
      indices[out] = j;
      weights[out++] = count > 1 ? 1.f / static_cast<float>(count - 1) : 0.f;
    }
  }
}

}  // namespace

IterationZero iterationZero(const float* points, std::size_t num_points, const std::int32_t* neighbors, int row) {
  if (row < 0 || num_points > std::size_t(INT32_MAX) / 3) throw std::invalid_argument("cuda iterationZero: bad sizes");
  const auto m = static_cast<std::int32_t>(num_points);
  const std::size_t entries = num_points * std::size_t(row);
  for (std::size_t e = 0; e < entries; ++e)
    if (neighbors[e] < 0 || neighbors[e] >= m)
      throw std::invalid_argument("cuda iterationZero: neighbour index " + std::to_string(neighbors[e]) +
                                  " out of range");
  IterationZero out;
  out.normals.assign(3 * num_points, NAN);
  out.curvature.assign(num_points, NAN);
  out.active.assign(num_points, 0);
  out.offsets.assign(num_points + 1, 0);
  if (m == 0) return out;
  if (!deviceAvailable()) throw std::runtime_error("cuda backend: no CUDA device is available");

  const DeviceArray<float> d_points(3 * num_points, points);
  const DeviceArray<std::int32_t> d_neighbors(entries, neighbors);
  DeviceArray<float> normals(3 * num_points), curvature(num_points);
  DeviceArray<std::uint8_t> active(num_points);
  DeviceArray<std::int64_t> kept(num_points + 1), offsets(num_points + 1);
  DeviceArray<int> changed(1);
  fitKernel<<<blocksFor(num_points), kThreadsPerBlock>>>(d_points.data, m, d_neighbors.data, row, normals.data,
                                                         curvature.data, active.data);
  check(cudaGetLastError(), "launching the plane fits");
  for (int flag = 1; flag;) {
    check(cudaMemset(changed.data, 0, sizeof(int)), "clearing a flag");
    countKept<<<blocksFor(num_points), kThreadsPerBlock>>>(m, d_neighbors.data, row, active.data, kept.data,
                                                           changed.data);
    check(cudaGetLastError(), "launching the pruning");
    changed.download(&flag, 1);
    if (flag)
      dropSmall<<<blocksFor(num_points), kThreadsPerBlock>>>(m, kept.data, active.data, normals.data, curvature.data);
  }
  // offsets = exclusive prefix sum of the kept counts (kept[m] = 0 closes it).
  check(cudaMemset(kept.data + num_points, 0, sizeof(std::int64_t)), "clearing a count");
  thrust::exclusive_scan(thrust::device, kept.data, kept.data + num_points + 1, offsets.data);
  offsets.download(out.offsets.data(), num_points + 1);
  const auto kept_entries = static_cast<std::size_t>(out.offsets[num_points]);
  DeviceArray<std::int32_t> indices(kept_entries);
  DeviceArray<float> weights(kept_entries);
  compact<<<blocksFor(num_points), kThreadsPerBlock>>>(m, d_neighbors.data, row, active.data, offsets.data,
                                                       indices.data, weights.data);
  check(cudaGetLastError(), "launching the compaction");
  check(cudaDeviceSynchronize(), "running iteration 0");
  out.indices.resize(kept_entries);
  out.initial_weights.resize(kept_entries);
  indices.download(out.indices.data(), kept_entries);
  weights.download(out.initial_weights.data(), kept_entries);
  normals.download(out.normals.data(), 3 * num_points);
  curvature.download(out.curvature.data(), num_points);
  active.download(out.active.data(), num_points);
  return out;
}

}  // namespace cuda
}  // namespace pcl_dise
