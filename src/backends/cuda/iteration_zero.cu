// Iteration 0 on the GPU, by the rules of pcl_dise's prepareGraph (iteration_zero.cpp): plain
// PCA per point with the shared plane fit, then the neighbourhoods of the points with a normal
// (whole: a neighbour without a normal stays, read as the zero vector) are compacted; their initial weights 1 / (K_i -
// 1) are a stage of their own, so that the whole estimation allocates them after freeing the search's neighbourhoods.
#include <thrust/execution_policy.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "device_stages.cuh"
#include "dise_cuda.h"
#include "pcl_dise/core/plane_fit.h"

namespace pcl_dise {
namespace cuda {
namespace {

__global__ void fitKernel(const float* points, std::int32_t m, const std::int64_t* offsets,
                          const std::int32_t* neighbors, float* normals, float* curvature, std::uint8_t* active) {
  const std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const int count = static_cast<int>(offsets[i + 1] - offsets[i]);
  float normal[3] = {NAN, NAN, NAN}, c = NAN;
  const bool ok = count >= 3 && fitPlane<double>(points, points + 3 * std::int64_t(i), neighbors + offsets[i],
                                                 static_cast<const float*>(nullptr), count, normal, &c);
  for (int a = 0; a < 3; ++a) normals[3 * std::int64_t(i) + a] = ok ? normal[a] : NAN;
  curvature[i] = ok ? c : NAN;
  active[i] = ok ? 1 : 0;
}

// The neighbourhoods of the iterations: a point with a normal keeps its whole neighbourhood (its
// neighbours without one included), a point without one gets none.
__global__ void countKept(std::int32_t m, const std::int64_t* offsets, const std::uint8_t* active, std::int64_t* kept) {
  const std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  kept[i] = active[i] ? offsets[i + 1] - offsets[i] : 0;
}

__global__ void compact(std::int32_t m, const std::int64_t* offsets, const std::int32_t* neighbors,
                        const std::uint8_t* active, const std::int64_t* kept_offsets, std::int32_t* indices) {
  const std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || !active[i]) return;
  std::int64_t out = kept_offsets[i];
  for (std::int64_t e = offsets[i]; e < offsets[i + 1]; ++e) indices[out++] = neighbors[e];
}

__global__ void uniformWeights(std::int32_t m, const std::int64_t* offsets, float* weights) {
  const std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  const std::int64_t count = offsets[i + 1] - offsets[i];
  for (std::int64_t e = offsets[i]; e < offsets[i + 1]; ++e)
    weights[e] = count > 1 ? 1.f / static_cast<float>(count - 1) : 0.f;
}

}  // namespace

DeviceIterationZero iterationZeroOnDevice(const float* d_points, std::int32_t m, const std::int64_t* d_offsets,
                                          const std::int32_t* d_indices) {
  const std::size_t n = static_cast<std::size_t>(m);
  DeviceIterationZero out{DeviceArray<float>(3 * n), DeviceArray<float>(n), DeviceArray<std::uint8_t>(n),
                          DeviceArray<std::int64_t>(n + 1)};
  DeviceArray<std::int64_t> kept(n + 1);
  if (m > 0) {
    fitKernel<<<blocksFor(n), kThreadsPerBlock>>>(d_points, m, d_offsets, d_indices, out.normals.data,
                                                  out.curvature.data, out.active.data);
    checkKernel("the plane fits");
    countKept<<<blocksFor(n), kThreadsPerBlock>>>(m, d_offsets, out.active.data, kept.data);
    checkKernel("the neighbourhood counts");
  }
  // offsets = exclusive prefix sum of the kept counts (kept[m] = 0 closes it).
  check(cudaMemset(kept.data + n, 0, sizeof(std::int64_t)), "clearing a count");
  out.largest = largestOnDevice(kept.data, n);
  thrust::exclusive_scan(thrust::device, kept.data, kept.data + n + 1, out.offsets.data);
  std::int64_t kept_entries = 0;
  check(cudaMemcpy(&kept_entries, out.offsets.data + n, sizeof(std::int64_t), cudaMemcpyDeviceToHost),
        "copying from the device");
  out.indices = DeviceArray<std::int32_t>(static_cast<std::size_t>(kept_entries));
  if (m > 0) {
    compact<<<blocksFor(n), kThreadsPerBlock>>>(m, d_offsets, d_indices, out.active.data, out.offsets.data,
                                                out.indices.data);
    checkKernel("the compaction");
  }
  return out;
}

void initialWeightsOnDevice(DeviceIterationZero& zero, std::int32_t m) {
  zero.weights = DeviceArray<float>(zero.indices.count);
  if (m == 0) return;
  uniformWeights<<<blocksFor(std::size_t(m)), kThreadsPerBlock>>>(m, zero.offsets.data, zero.weights.data);
  checkKernel("the initial weights");
}

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
  requireDevice();

  const DeviceArray<float> d_points(3 * num_points, points);
  const DeviceArray<std::int32_t> d_neighbors(entries, neighbors);
  DeviceArray<std::int64_t> d_offsets(num_points + 1);  // dense rows: offsets i * row
  thrust::sequence(thrust::device, d_offsets.data, d_offsets.data + num_points + 1, std::int64_t(0), std::int64_t(row));
  DeviceIterationZero zero = iterationZeroOnDevice(d_points.data, m, d_offsets.data, d_neighbors.data);
  initialWeightsOnDevice(zero, m);
  check(cudaDeviceSynchronize(), "running iteration 0");
  zero.offsets.download(out.offsets.data(), num_points + 1);
  const auto kept_entries = static_cast<std::size_t>(out.offsets[num_points]);
  out.indices.resize(kept_entries);
  out.initial_weights.resize(kept_entries);
  zero.indices.download(out.indices.data(), kept_entries);
  zero.weights.download(out.initial_weights.data(), kept_entries);
  zero.normals.download(out.normals.data(), 3 * num_points);
  zero.curvature.download(out.curvature.data(), num_points);
  zero.active.download(out.active.data(), num_points);
  return out;
}

}  // namespace cuda
}  // namespace pcl_dise
