// DeviceEstimation: the whole estimation on the device, the stages of device_stages.cuh composed
// on arrays that stay there. The searches answer in node numbers (tie order mapped back on the
// device); iteration 0 replaces the search's neighbourhoods by those of the iterations, which the
// iterations then read.
#include <thrust/execution_policy.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "device_stages.cuh"
#include "dise_cuda.h"
#include "pcl_dise/core/edge_scale.h"

namespace pcl_dise {
namespace cuda {
namespace {

constexpr int kScaleNeighbors = static_cast<int>(kEdgeScaleNeighbors);

__global__ void gatherPoints(const float* points, const std::int32_t* order, std::int32_t count, float* out) {
  const std::int32_t s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= count) return;
  for (int a = 0; a < 3; ++a) out[3 * std::int64_t(s) + a] = points[3 * std::int64_t(order[s]) + a];
}

__global__ void copyPrefix(const std::int32_t* table, std::int32_t m, int stride, int row, std::int32_t* out) {
  const std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m) return;
  for (int j = 0; j < row; ++j) out[std::int64_t(i) * row + j] = table[std::int64_t(i) * stride + j];
}

// The queries in the grid's cell order (a warp's queries read the same cells): the searched
// points as the grid sorted them, as node numbers, then the points that are only queries.
__global__ void cellOrder(const std::int32_t* sorted_ids, const std::int32_t* tie_order, std::int32_t searched,
                          std::int32_t m, std::int32_t* order) {
  const std::int32_t t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < searched)
    order[t] = tie_order ? tie_order[sorted_ids[t]] : sorted_ids[t];
  else if (t < m)
    order[t] = t;
}

__global__ void scaleTerms(const float* points, std::int32_t searched, const std::int32_t* table, int stride, int count,
                           double* terms) {
  const std::int32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < searched)
    terms[i] = edgeScaleTerm(points, points + 3 * std::int64_t(i), table + std::int64_t(i) * stride, count);
}

}  // namespace

struct DeviceEstimation::State {
  std::int32_t m = 0, searched = 0;
  GridShape shape;
  DeviceArray<float> points;            // M x 3, node order
  DeviceArray<std::int32_t> tie_order;  // searched, where given
  DeviceArray<float> searched_points;   // searched x 3 in tie order, where tie_order is given
  // The search's neighbourhoods, then iteration 0's.
  DeviceArray<std::int64_t> offsets;
  DeviceArray<std::int32_t> indices;
  // Rows holding each searched point's nearest neighbours for the edge scale: scale_rows points
  // into `indices` or scale_table.
  DeviceArray<std::int32_t> scale_table;
  const std::int32_t* scale_rows = nullptr;
  int scale_stride = 0;
  bool searched_once = false;
  DeviceIterationZero zero;
  bool has_zero = false;

  // The grid over the searched points, built once for the search and the edge scale's 17 nearest.
  std::unique_ptr<DeviceGrid> built_grid;
  DeviceArray<std::int32_t> query_order;  // where the grid's own order is not every query's

  const DeviceGrid& grid() {
    if (!built_grid)
      built_grid.reset(
          new DeviceGrid(buildGrid(tie_order.count ? searched_points.data : points.data, searched, shape)));
    return *built_grid;
  }
  // Every point as a query, visited in cell order; the searched ones first.
  DeviceQueries allQueries() {
    const std::int32_t* id_map = tie_order.count ? tie_order.data : nullptr;
    const DeviceGrid& g = grid();
    if (!id_map && searched == m) return {points.data, m, g.sorted_ids.data, nullptr};
    if (!query_order.count && m > 0) {
      query_order = DeviceArray<std::int32_t>(std::size_t(m));
      cellOrder<<<blocksFor(std::size_t(m)), kThreadsPerBlock>>>(g.sorted_ids.data, id_map, searched, m,
                                                                 query_order.data);
      checkKernel("the query order");
    }
    return {points.data, m, query_order.data, id_map};
  }
};

DeviceEstimation::DeviceEstimation(const float* points, std::size_t num_points, std::size_t num_searched,
                                   const std::int32_t* tie_order)
    : state_(new State) {
  if (num_points > std::size_t(INT32_MAX) / 3 || num_searched > num_points)
    throw std::invalid_argument("cuda backend: bad sizes (" + std::to_string(num_points) + " points, " +
                                std::to_string(num_searched) + " searched)");
  for (std::size_t i = 0; i < 3 * num_points; ++i)
    if (!std::isfinite(points[i]))
      throw std::invalid_argument("cuda backend: point " + std::to_string(i / 3) + " is not finite");
  requireDevice();
  State& s = *state_;
  s.m = static_cast<std::int32_t>(num_points);
  s.searched = static_cast<std::int32_t>(num_searched);
  s.shape = gridShapeFor(points, num_searched);  // the box of the searched points, whatever their order
  s.points = DeviceArray<float>(3 * num_points, points);
  if (tie_order) {
    s.tie_order = DeviceArray<std::int32_t>(num_searched, tie_order);
    s.searched_points = DeviceArray<float>(3 * num_searched);
    if (num_searched > 0) {
      gatherPoints<<<blocksFor(num_searched), kThreadsPerBlock>>>(s.points.data, s.tie_order.data, s.searched,
                                                                  s.searched_points.data);
      checkKernel("a gather");
    }
  }
}

DeviceEstimation::~DeviceEstimation() = default;

void DeviceEstimation::searchNearest(std::size_t k) {
  State& s = *state_;
  if (k < 1 || k > std::size_t(kMaxNeighborhood))
    throw std::invalid_argument("cuda backend: at most " + std::to_string(kMaxNeighborhood) +
                                " neighbours per point, not " + std::to_string(k));
  if (s.searched_once) throw std::logic_error("cuda backend: one search per estimation");
  s.searched_once = true;
  const int row = std::min(static_cast<int>(k), s.searched);
  const int scale = std::min(kScaleNeighbors, s.searched);
  const int stride = std::max(row, scale);  // one search answers both
  const std::size_t m = static_cast<std::size_t>(s.m);
  DeviceArray<std::int32_t> table(m * stride);
  nearestOnDevice(s.grid().view(), s.allQueries(), stride, table.data);
  s.offsets = DeviceArray<std::int64_t>(m + 1);
  thrust::sequence(thrust::device, s.offsets.data, s.offsets.data + m + 1, std::int64_t(0), std::int64_t(row));
  if (stride == row) {
    s.indices = std::move(table);
    s.scale_rows = s.indices.data;
  } else {
    s.indices = DeviceArray<std::int32_t>(m * row);
    if (m > 0) {
      copyPrefix<<<blocksFor(m), kThreadsPerBlock>>>(table.data, s.m, stride, row, s.indices.data);
      checkKernel("a copy");
    }
    s.scale_table = std::move(table);
    s.scale_rows = s.scale_table.data;
  }
  s.scale_stride = stride;
}

void DeviceEstimation::searchWithin(float radius, float radius2, int max_neighbors) {
  State& s = *state_;
  if (!(radius > 0) || !std::isfinite(radius)) throw std::invalid_argument("cuda backend: the radius must be positive");
  if (s.searched_once) throw std::logic_error("cuda backend: one search per estimation");
  s.searched_once = true;
  const std::size_t m = static_cast<std::size_t>(s.m);
  const DeviceGrid& grid = s.grid();
  DeviceArray<std::int64_t> counts(m + 1);
  check(cudaMemset(counts.data + m, 0, sizeof(std::int64_t)), "clearing a count");
  const std::int64_t largest =
      countWithinOnDevice(grid.view(), s.allQueries(), radius, radius2, max_neighbors, counts.data);
  if (largest > kMaxNeighborhood)
    throw std::runtime_error("cuda backend: a radius neighbourhood of " + std::to_string(largest) +
                             " points; at most " + std::to_string(kMaxNeighborhood) +
                             " are supported (set a neighbour cap)");
  s.offsets = DeviceArray<std::int64_t>(m + 1);
  thrust::exclusive_scan(thrust::device, counts.data, counts.data + m + 1, s.offsets.data);
  std::int64_t entries = 0;
  check(cudaMemcpy(&entries, s.offsets.data + m, sizeof entries, cudaMemcpyDeviceToHost), "copying from the device");
  s.indices = DeviceArray<std::int32_t>(static_cast<std::size_t>(entries));
  fillWithinOnDevice(grid.view(), s.allQueries(), radius, radius2, s.offsets.data, largest, s.indices.data);
}

void DeviceEstimation::useNeighborhoods(const std::int64_t* offsets, const std::int32_t* indices) {
  State& s = *state_;
  if (s.searched_once) throw std::logic_error("cuda backend: one search per estimation");
  s.searched_once = true;
  const std::size_t m = static_cast<std::size_t>(s.m);
  s.offsets = DeviceArray<std::int64_t>(m + 1, offsets);
  s.indices = DeviceArray<std::int32_t>(static_cast<std::size_t>(offsets[m]), indices);
}

std::vector<double> DeviceEstimation::edgeScaleTerms(std::size_t* entries) {
  State& s = *state_;
  if (s.has_zero) throw std::logic_error("cuda backend: the edge-scale terms come before iteration 0");
  const int scale = std::min(kScaleNeighbors, s.searched);
  if (!s.scale_rows) {  // a radius search or given neighbourhoods: the 17 nearest searched here
    s.scale_table = DeviceArray<std::int32_t>(std::size_t(s.searched) * scale);
    const DeviceGrid& grid = s.grid();
    DeviceQueries queries = s.allQueries();
    queries.count = s.searched;
    nearestOnDevice(grid.view(), queries, scale, s.scale_table.data);
    s.scale_rows = s.scale_table.data;
    s.scale_stride = scale;
  }
  DeviceArray<double> terms(static_cast<std::size_t>(s.searched));
  if (s.searched > 0) {
    scaleTerms<<<blocksFor(s.searched), kThreadsPerBlock>>>(s.points.data, s.searched, s.scale_rows, s.scale_stride,
                                                            scale, terms.data);
    checkKernel("the edge-scale terms");
  }
  std::vector<double> out(static_cast<std::size_t>(s.searched));
  terms.download(out.data(), out.size());
  if (entries) *entries = std::size_t(s.searched) * std::size_t(scale);
  return out;
}

void DeviceEstimation::iterationZero() {
  State& s = *state_;
  if (!s.searched_once) throw std::logic_error("cuda backend: iteration 0 needs a search first");
  s.zero = iterationZeroOnDevice(s.points.data, s.m, s.offsets.data, s.indices.data);
  s.has_zero = true;
  // The iterations' neighbourhoods replace the search's: free them and the grid before the weights are
  // allocated, so that at most two arrays of one entry per neighbour live at once (at 100M points
  // and k = 64, 51 GB instead of 77 GB).
  s.built_grid.reset();
  s.query_order = DeviceArray<std::int32_t>();
  s.indices = DeviceArray<std::int32_t>();
  s.offsets = DeviceArray<std::int64_t>();
  s.scale_table = DeviceArray<std::int32_t>();
  s.scale_rows = nullptr;
  initialWeightsOnDevice(s.zero, s.m);
  check(cudaDeviceSynchronize(), "running iteration 0");
}

bool DeviceEstimation::iterate(const float* parameters, float edge_scale, const float* edge_scales, int iterations,
                               float settle_cos, float* iteration_normals, const std::function<bool(int)>& after_each) {
  State& s = *state_;
  if (!s.has_zero) throw std::logic_error("cuda backend: the iterations need iteration 0 first");
  const std::size_t m = static_cast<std::size_t>(s.m);
  const DeviceArray<float> d_parameters(kParameterCount, parameters);
  const bool adaptive = !std::isnan(settle_cos);
  DeviceArray<std::uint8_t> settled(adaptive ? m : 0);
  if (adaptive) check(cudaMemset(settled.data, 0, std::max<std::size_t>(m, 1)), "clearing the settled flags");
  const DeviceArray<float> scales(edge_scales ? m : 0, edge_scales);
  const DeviceGraph graph{s.points.data,        m,
                          edge_scale,           edge_scales ? scales.data : nullptr,
                          s.zero.offsets.data,  s.zero.indices.data,
                          s.zero.indices.count, s.zero.active.data,
                          s.zero.largest};
  return iterateOnDevice(d_parameters.data, graph, iterations, s.zero.normals.data, s.zero.weights.data,
                         s.zero.curvature.data, adaptive ? settled.data : nullptr, settle_cos,
                         [&](int it, const float* d_normals) {
                           if (iteration_normals)
                             check(cudaMemcpy(iteration_normals + std::size_t(it - 1) * 3 * m, d_normals,
                                              3 * m * sizeof(float), cudaMemcpyDeviceToHost),
                                   "copying from the device");
                           return !after_each || after_each(it);
                         });
}

void DeviceEstimation::results(float* normals, float* curvature) const {
  const State& s = *state_;
  if (!s.has_zero) throw std::logic_error("cuda backend: no results before iteration 0");
  s.zero.normals.download(normals, 3 * std::size_t(s.m));
  s.zero.curvature.download(curvature, std::size_t(s.m));
}

void DeviceEstimation::kernelNeighborhoods(std::vector<std::int64_t>& offsets, std::vector<std::int32_t>& indices,
                                           std::vector<float>& weights) const {
  const State& s = *state_;
  if (!s.has_zero) throw std::logic_error("cuda backend: no neighbourhoods before iteration 0");
  offsets.resize(std::size_t(s.m) + 1);
  s.zero.offsets.download(offsets.data(), offsets.size());
  indices.resize(s.zero.indices.count);
  weights.resize(s.zero.weights.count);
  s.zero.indices.download(indices.data(), indices.size());
  s.zero.weights.download(weights.data(), weights.size());
}

}  // namespace cuda
}  // namespace pcl_dise
