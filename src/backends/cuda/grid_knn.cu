// k-NN search on the GPU: the points sorted by grid cell (thrust), then one thread per point,
// in cell order so that a warp's queries read the same cells, scanning rings of cells
// (grid_knn.h) with its sorted candidate list in local memory.
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "device_array.cuh"
#include "dise_cuda.h"
#include "grid_knn.h"

namespace pcl_dise {
namespace cuda {
namespace {

__global__ void cellOfEachPoint(GridShape shape, const float* points, std::int32_t m, std::int32_t* cell) {
  const std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < m) cell[i] = static_cast<std::int32_t>(shape.cellOf(points + 3 * std::int64_t(i)));
}

__global__ void gatherSorted(const float* points, const std::int32_t* sorted_ids, std::int32_t m,
                             float* sorted_points) {
  const std::int32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= m) return;
  const float* q = points + 3 * std::int64_t(sorted_ids[p]);
  for (int a = 0; a < 3; ++a) sorted_points[3 * std::int64_t(p) + a] = q[a];
}

template <int MaxK>
__global__ void nearestKernel(GridView grid, std::int32_t m, int k, std::int32_t* neighbors) {
  const std::int32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= m) return;
  std::int32_t ids[MaxK];
  float dist2[MaxK];
  const float query[3] = {grid.sorted_points[3 * std::int64_t(p)], grid.sorted_points[3 * std::int64_t(p) + 1],
                          grid.sorted_points[3 * std::int64_t(p) + 2]};
  const int found = nearestInGrid(grid, query, k, ids, dist2);
  std::int32_t* row = neighbors + std::int64_t(grid.sorted_ids[p]) * k;
  for (int j = 0; j < found; ++j) row[j] = ids[j];
}

}  // namespace

int nearestNeighbors(const float* points, std::size_t num_points, int k, std::int32_t* neighbors) {
  if (k < 1 || k > 1024)
    throw std::invalid_argument("cuda nearestNeighbors: k must be in 1..1024, got " + std::to_string(k));
  if (num_points > std::size_t(INT32_MAX) / 3)
    throw std::invalid_argument("cuda nearestNeighbors: too many points (" + std::to_string(num_points) + ")");
  for (std::size_t i = 0; i < 3 * num_points; ++i)
    if (!std::isfinite(points[i]))
      throw std::invalid_argument("cuda nearestNeighbors: point " + std::to_string(i / 3) + " is not finite");
  const auto m = static_cast<std::int32_t>(num_points);
  const int row = std::min<int>(k, m);
  if (m == 0) return row;
  if (!deviceAvailable()) throw std::runtime_error("cuda backend: no CUDA device is available");

  const GridShape shape = gridShapeFor(points, num_points);
  const DeviceArray<float> d_points(3 * num_points, points);
  DeviceArray<std::int32_t> cell(num_points), sorted_ids(num_points), cell_start(shape.numCells() + 1);
  DeviceArray<float> sorted_points(3 * num_points);
  cellOfEachPoint<<<blocksFor(num_points), kThreadsPerBlock>>>(shape, d_points.data, m, cell.data);
  check(cudaGetLastError(), "launching the grid kernel");
  thrust::sequence(thrust::device, sorted_ids.data, sorted_ids.data + m);
  thrust::stable_sort_by_key(thrust::device, cell.data, cell.data + m, sorted_ids.data);
  thrust::lower_bound(thrust::device, cell.data, cell.data + m, thrust::counting_iterator<std::int32_t>(0),
                      thrust::counting_iterator<std::int32_t>(static_cast<std::int32_t>(shape.numCells() + 1)),
                      cell_start.data);
  gatherSorted<<<blocksFor(num_points), kThreadsPerBlock>>>(d_points.data, sorted_ids.data, m, sorted_points.data);
  check(cudaGetLastError(), "launching the grid kernel");

  DeviceArray<std::int32_t> d_neighbors(num_points * std::size_t(row));
  const GridView grid{shape, cell_start.data, sorted_ids.data, sorted_points.data};
  auto run = [&](auto max_k) {
    nearestKernel<decltype(max_k)::value><<<blocksFor(num_points), kThreadsPerBlock>>>(grid, m, row, d_neighbors.data);
  };
  if (row <= 32)
    run(std::integral_constant<int, 32>());
  else if (row <= 96)
    run(std::integral_constant<int, 96>());
  else if (row <= 256)
    run(std::integral_constant<int, 256>());
  else
    run(std::integral_constant<int, 1024>());
  check(cudaGetLastError(), "launching the k-NN kernel");
  check(cudaDeviceSynchronize(), "running the k-NN search");
  d_neighbors.download(neighbors, num_points * std::size_t(row));
  return row;
}

}  // namespace cuda
}  // namespace pcl_dise
