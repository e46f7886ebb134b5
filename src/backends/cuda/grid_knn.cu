// Searches on the GPU: the points sorted by grid cell (thrust), then one thread per query
// scanning cells (grid_knn.h) with its sorted candidate list in local memory. k nearest: rings
// of cells until the k-th distance is covered; radius: the cells the ball touches, counted
// first, then written at offsets from the counts.
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/reverse_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "device_stages.cuh"
#include "dise_cuda.h"

namespace pcl_dise {
namespace cuda {
namespace {

// A float's bits, -0 read as +0 (the same position).
__device__ std::uint32_t positionBits(float x) { return x == 0.f ? 0u : __float_as_uint(x); }

// The sort key of a point: its cell in `shape`, then a hash of its position. Coincident points
// share a key, so that a stable sort lists them together, ids ascending; points that only share a
// hash interleave with them by id, which splits their runs (costs a skip, never a neighbour).
__device__ std::uint64_t cellKey(const GridShape& shape, const float* p) {
  std::uint32_t h = positionBits(p[0]) * 0x9E3779B1u;
  h = (h ^ (h >> 15) ^ positionBits(p[1])) * 0x85EBCA77u;
  h = (h ^ (h >> 13) ^ positionBits(p[2])) * 0xC2B2AE3Du;
  return (std::uint64_t(shape.cellOf(p)) << 32) | (h ^ (h >> 16));
}

// Keys of `count` points from `first` (rows of 3 floats).
__global__ void cellKeys(GridShape shape, const float* points, std::int32_t first, std::int32_t count,
                         std::uint64_t* key) {
  const std::int32_t e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < count) key[e] = cellKey(shape, points + 3 * (std::int64_t(first) + e));
}

struct OccupiedCell {
  const std::int32_t* start;
  __device__ bool operator()(std::int64_t c) const { return start[c + 1] > start[c]; }
};

struct CrowdedCell {
  const std::int32_t* start;
  std::int64_t limit;
  __device__ bool operator()(std::int64_t c) const { return start[c + 1] - start[c] > limit; }
};

// Every stride-th of `count` entries from `first`: the sample gridBoxFor reads on the host.
__global__ void sampleEntries(const float* sorted_points, std::int32_t first, std::int32_t stride, std::int32_t n,
                              float* out) {
  const std::int32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  for (int a = 0; a < 3; ++a)
    out[3 * std::int64_t(j) + a] = sorted_points[3 * (std::int64_t(first) + std::int64_t(j) * stride) + a];
}

// Each listed cell's first entry and the entry after its last, side by side.
__global__ void cellBounds(const std::int32_t* cell_start, const std::int64_t* cells, std::int64_t count,
                           std::int32_t* bounds) {
  const std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (i >= count) return;
  bounds[2 * i] = cell_start[cells[i]];
  bounds[2 * i + 1] = cell_start[cells[i] + 1];
}

// Entries first + order[e] to first + e (ids and points), through copies out.
__global__ void permuteEntries(const std::int32_t* order, std::int32_t count, const std::int32_t* ids,
                               const float* points, std::int32_t* ids_out, float* points_out) {
  const std::int32_t e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= count) return;
  ids_out[e] = ids[order[e]];
  for (int a = 0; a < 3; ++a) points_out[3 * std::int64_t(e) + a] = points[3 * std::int64_t(order[e]) + a];
}

__global__ void markNested(const std::int64_t* cells, std::int32_t count, std::int32_t* nested_of_cell) {
  const std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) nested_of_cell[cells[i]] = i;
}

__global__ void cellOfKey(const std::uint64_t* key, std::int32_t m, std::int32_t* cell) {
  const std::int32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p < m) cell[p] = static_cast<std::int32_t>(key[p] >> 32);
}

// run_end's seeds: p + 1 where entry p is the last of its position, none (INT32_MAX) elsewhere.
__global__ void runBoundaries(const float* sorted_points, std::int32_t m, std::int32_t* boundary) {
  const std::int32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= m) return;
  const bool last =
      p + 1 == m || !samePosition(sorted_points + 3 * std::int64_t(p), sorted_points + 3 * std::int64_t(p + 1));
  boundary[p] = last ? p + 1 : INT32_MAX;
}

__global__ void gatherSorted(const float* points, const std::int32_t* sorted_ids, std::int32_t m,
                             float* sorted_points) {
  const std::int32_t p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= m) return;
  const float* q = points + 3 * std::int64_t(sorted_ids[p]);
  for (int a = 0; a < 3; ++a) sorted_points[3 * std::int64_t(p) + a] = q[a];
}

__device__ std::int32_t queryOf(const DeviceQueries& queries, std::int32_t t) {
  return queries.order ? queries.order[t] : t;
}

__device__ std::int32_t storedId(const DeviceQueries& queries, std::int32_t id) {
  return queries.id_map ? queries.id_map[id] : id;
}

template <int MaxK>
__global__ void nearestKernel(GridView grid, DeviceQueries queries, int k, std::int32_t* neighbors) {
  const std::int32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= queries.count) return;
  const std::int32_t q = queryOf(queries, t);
  std::int32_t ids[MaxK];
  float dist2[MaxK];
  const int found = nearestInGrid(grid, queries.points + 3 * std::int64_t(q), k, ids, dist2);
  std::int32_t* row = neighbors + std::int64_t(q) * k;
  for (int j = 0; j < found; ++j) row[j] = storedId(queries, ids[j]);
}

__global__ void countWithinKernel(GridView grid, DeviceQueries queries, float radius, float radius2, int cap,
                                  std::int64_t* counts) {
  const std::int32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= queries.count) return;
  const std::int32_t q = queryOf(queries, t);
  const int count =
      withinRadiusInGrid(grid, queries.points + 3 * std::int64_t(q), radius, radius2, 0, nullptr, nullptr);
  counts[q] = cap > 0 && count > cap ? cap : count;
}

template <int MaxK>
__global__ void fillWithinKernel(GridView grid, DeviceQueries queries, float radius, float radius2,
                                 const std::int64_t* offsets, std::int32_t* indices) {
  const std::int32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= queries.count) return;
  const std::int32_t q = queryOf(queries, t);
  const int capacity = static_cast<int>(offsets[q + 1] - offsets[q]);
  if (capacity == 0) return;
  std::int32_t ids[MaxK];
  float dist2[MaxK];
  withinRadiusInGrid(grid, queries.points + 3 * std::int64_t(q), radius, radius2, capacity, ids, dist2);
  for (int j = 0; j < capacity; ++j) indices[offsets[q] + j] = storedId(queries, ids[j]);
}

// Runs launch(std::integral_constant<int, MaxK>) with the smallest list size that holds `row`.
template <typename Launch>
void withListSize(std::int64_t row, Launch launch) {
  if (row <= 32)
    launch(std::integral_constant<int, 32>());
  else if (row <= 96)
    launch(std::integral_constant<int, 96>());
  else if (row <= 256)
    launch(std::integral_constant<int, 256>());
  else
    launch(std::integral_constant<int, kMaxNeighborhood>());
}

// Crowded cells (crowdedCellLimit) get nested grids, as HostGrid's: each one's entries re-sorted
// by its nested cells (then position), their starts in the pool nested_cell_start.
void nestCrowdedCells(DeviceGrid& grid, std::int32_t m) {
  const std::int64_t cells = grid.shape.numCells();
  const thrust::counting_iterator<std::int64_t> index(0);
  const std::int64_t occupied =
      thrust::count_if(thrust::device, index, index + cells, OccupiedCell{grid.cell_start.data});
  const CrowdedCell crowded{grid.cell_start.data, crowdedCellLimit(std::size_t(m), occupied)};
  const std::int64_t count = thrust::count_if(thrust::device, index, index + cells, crowded);
  if (count == 0) return;
  DeviceArray<std::int64_t> list(static_cast<std::size_t>(count));
  thrust::copy_if(thrust::device, index, index + cells, list.data, crowded);
  DeviceArray<std::int32_t> bounds(2 * static_cast<std::size_t>(count));
  cellBounds<<<blocksFor(std::size_t(count)), kThreadsPerBlock>>>(grid.cell_start.data, list.data, count, bounds.data);
  checkKernel("the bounds of the crowded cells");
  std::vector<std::int32_t> starts(2 * static_cast<std::size_t>(count));  // one download for every cell
  bounds.download(starts.data(), starts.size());
  // The shapes, from each cell's sample, and the pool's layout.
  std::vector<NestedGrid> nested(static_cast<std::size_t>(count));
  std::int64_t pool = 0;
  for (std::size_t i = 0; i < nested.size(); ++i) {
    const std::int32_t first = starts[2 * i], entries = starts[2 * i + 1] - first;
    const std::int32_t stride = std::max<std::int32_t>(1, entries / 65536), n = (entries + stride - 1) / stride;
    DeviceArray<float> sample(3 * std::size_t(n));
    sampleEntries<<<blocksFor(std::size_t(n)), kThreadsPerBlock>>>(grid.sorted_points.data, first, stride, n,
                                                                   sample.data);
    checkKernel("the sample of a crowded cell");
    std::vector<float> host_sample(3 * std::size_t(n));
    sample.download(host_sample.data(), host_sample.size());
    float lo[3], hi[3];
    gridBoxFor(host_sample.data(), std::size_t(n), lo, hi);
    nested[i] = {gridShapeForBox(lo, hi, nestedCellsFor(entries)), first, pool};
    pool += nested[i].shape.numCells() + 1;
  }
  grid.nested_cell_start = DeviceArray<std::int32_t>(static_cast<std::size_t>(pool));
  for (std::size_t i = 0; i < nested.size(); ++i) {
    const NestedGrid& n = nested[i];
    const std::int32_t entries = starts[2 * i + 1] - n.first;
    DeviceArray<std::uint64_t> key(entries);
    cellKeys<<<blocksFor(std::size_t(entries)), kThreadsPerBlock>>>(n.shape, grid.sorted_points.data, n.first, entries,
                                                                    key.data);
    checkKernel("the nested cells of a crowded cell");
    DeviceArray<std::int32_t> order(entries), ids(entries), cell(entries);
    DeviceArray<float> points(3 * std::size_t(entries));
    thrust::sequence(thrust::device, order.data, order.data + entries);
    thrust::stable_sort_by_key(thrust::device, key.data, key.data + entries, order.data);
    permuteEntries<<<blocksFor(std::size_t(entries)), kThreadsPerBlock>>>(
        order.data, entries, grid.sorted_ids.data + n.first, grid.sorted_points.data + 3 * std::int64_t(n.first),
        ids.data, points.data);
    checkKernel("the order of a crowded cell");
    check(
        cudaMemcpy(grid.sorted_ids.data + n.first, ids.data, entries * sizeof(std::int32_t), cudaMemcpyDeviceToDevice),
        "copying on the device");
    check(cudaMemcpy(grid.sorted_points.data + 3 * std::int64_t(n.first), points.data, 3 * entries * sizeof(float),
                     cudaMemcpyDeviceToDevice),
          "copying on the device");
    cellOfKey<<<blocksFor(std::size_t(entries)), kThreadsPerBlock>>>(key.data, entries, cell.data);
    checkKernel("the nested cells of the sorted points");
    thrust::lower_bound(thrust::device, cell.data, cell.data + entries, thrust::counting_iterator<std::int32_t>(0),
                        thrust::counting_iterator<std::int32_t>(static_cast<std::int32_t>(n.shape.numCells() + 1)),
                        grid.nested_cell_start.data + n.cell_start_at);
  }
  grid.nested_of_cell = DeviceArray<std::int32_t>(static_cast<std::size_t>(cells));
  check(cudaMemset(grid.nested_of_cell.data, 0xff, cells * sizeof(std::int32_t)), "clearing the nested grids");  // -1
  markNested<<<blocksFor(std::size_t(count)), kThreadsPerBlock>>>(list.data, static_cast<std::int32_t>(count),
                                                                  grid.nested_of_cell.data);
  checkKernel("the cells with nested grids");
  grid.nested = DeviceArray<NestedGrid>(nested.size(), nested.data());
}

}  // namespace

std::int64_t largestOnDevice(const std::int64_t* d_values, std::size_t count) {
  return thrust::reduce(thrust::device, d_values, d_values + count, std::int64_t(0), thrust::maximum<std::int64_t>());
}

DeviceGrid buildGrid(const float* d_points, std::int32_t m, const GridShape& shape) {
  DeviceGrid grid{shape, DeviceArray<std::int32_t>(shape.numCells() + 1), DeviceArray<std::int32_t>(m),
                  DeviceArray<float>(3 * std::size_t(m))};
  if (m == 0) {
    check(cudaMemset(grid.cell_start.data, 0, (shape.numCells() + 1) * sizeof(std::int32_t)), "clearing the grid");
    return grid;
  }
  {
    DeviceArray<std::uint64_t> key(m);
    cellKeys<<<blocksFor(m), kThreadsPerBlock>>>(shape, d_points, 0, m, key.data);
    checkKernel("the cells of the grid points");
    thrust::sequence(thrust::device, grid.sorted_ids.data, grid.sorted_ids.data + m);
    thrust::stable_sort_by_key(thrust::device, key.data, key.data + m, grid.sorted_ids.data);
    DeviceArray<std::int32_t> cell(m);
    cellOfKey<<<blocksFor(m), kThreadsPerBlock>>>(key.data, m, cell.data);
    checkKernel("the cells of the sorted points");
    thrust::lower_bound(thrust::device, cell.data, cell.data + m, thrust::counting_iterator<std::int32_t>(0),
                        thrust::counting_iterator<std::int32_t>(static_cast<std::int32_t>(shape.numCells() + 1)),
                        grid.cell_start.data);
  }
  gatherSorted<<<blocksFor(m), kThreadsPerBlock>>>(d_points, grid.sorted_ids.data, m, grid.sorted_points.data);
  checkKernel("the gather of the grid points");
  nestCrowdedCells(grid, m);
  // run_end[p] = the smallest boundary at or after p: a scan from the end with the minimum.
  grid.run_end = DeviceArray<std::int32_t>(m);
  runBoundaries<<<blocksFor(m), kThreadsPerBlock>>>(grid.sorted_points.data, m, grid.run_end.data);
  checkKernel("the runs of coincident points");
  thrust::inclusive_scan(thrust::device, thrust::make_reverse_iterator(grid.run_end.data + m),
                         thrust::make_reverse_iterator(grid.run_end.data),
                         thrust::make_reverse_iterator(grid.run_end.data + m), thrust::minimum<std::int32_t>());
  return grid;
}

void nearestOnDevice(const GridView& grid, const DeviceQueries& queries, int row, std::int32_t* d_out) {
  if (queries.count == 0 || row == 0) return;
  withListSize(row, [&](auto max_k) {
    nearestKernel<decltype(max_k)::value><<<blocksFor(queries.count), kThreadsPerBlock>>>(grid, queries, row, d_out);
  });
  checkKernel("the k-NN kernel");
}

std::int64_t countWithinOnDevice(const GridView& grid, const DeviceQueries& queries, float radius, float radius2,
                                 int cap, std::int64_t* d_counts) {
  if (queries.count == 0) return 0;
  countWithinKernel<<<blocksFor(queries.count), kThreadsPerBlock>>>(grid, queries, radius, radius2, cap, d_counts);
  checkKernel("the radius count");
  return largestOnDevice(d_counts, queries.count);
}

void fillWithinOnDevice(const GridView& grid, const DeviceQueries& queries, float radius, float radius2,
                        const std::int64_t* d_offsets, std::int64_t largest, std::int32_t* d_indices) {
  if (queries.count == 0 || largest == 0) return;
  if (largest > kMaxNeighborhood)
    throw std::runtime_error("cuda backend: radius neighbourhoods of more than " + std::to_string(kMaxNeighborhood) +
                             " points");
  withListSize(largest, [&](auto max_k) {
    fillWithinKernel<decltype(max_k)::value>
        <<<blocksFor(queries.count), kThreadsPerBlock>>>(grid, queries, radius, radius2, d_offsets, d_indices);
  });
  checkKernel("the radius search");
}

int nearestNeighbors(const float* points, std::size_t num_points, int k, std::int32_t* neighbors) {
  if (k < 1 || k > kMaxNeighborhood)
    throw std::invalid_argument("cuda nearestNeighbors: k must be in 1.." + std::to_string(kMaxNeighborhood) +
                                ", got " + std::to_string(k));
  if (num_points > std::size_t(INT32_MAX) / 3)
    throw std::invalid_argument("cuda nearestNeighbors: too many points (" + std::to_string(num_points) + ")");
  for (std::size_t i = 0; i < 3 * num_points; ++i)
    if (!std::isfinite(points[i]))
      throw std::invalid_argument("cuda nearestNeighbors: point " + std::to_string(i / 3) + " is not finite");
  const auto m = static_cast<std::int32_t>(num_points);
  const int row = std::min<int>(k, m);
  if (m == 0) return row;
  requireDevice();

  const DeviceArray<float> d_points(3 * num_points, points);
  const DeviceGrid grid = buildGrid(d_points.data, m, gridShapeFor(points, num_points));
  DeviceArray<std::int32_t> d_neighbors(num_points * std::size_t(row));
  // Queries in cell order: a warp's queries read the same cells.
  nearestOnDevice(grid.view(), {d_points.data, m, grid.sorted_ids.data, nullptr}, row, d_neighbors.data);
  check(cudaDeviceSynchronize(), "running the k-NN search");
  d_neighbors.download(neighbors, num_points * std::size_t(row));
  return row;
}

}  // namespace cuda
}  // namespace pcl_dise
