#pragma once
// The CUDA backend's stages on device arrays, shared by the one-stage host functions of
// dise_cuda.h (tests, benchmark) and DeviceEstimation (the whole estimation). Each lives in the
// translation unit of its kernels: the grid and the searches in grid_knn.cu, iteration 0 in
// iteration_zero.cu, the iterations in dise_kernels.cu.
#include <cstdint>
#include <functional>

#include "device_array.cuh"
#include "grid_knn.h"

namespace pcl_dise {
namespace cuda {

/** The largest of `count` values on the device (0 for none). */
std::int64_t largestOnDevice(const std::int64_t* d_values, std::size_t count);

/** A grid over points on the device (grid_knn.h's GridView over device arrays). */
struct DeviceGrid {
  GridShape shape;
  DeviceArray<std::int32_t> cell_start, sorted_ids;
  DeviceArray<float> sorted_points;
  DeviceArray<std::int32_t> run_end;
  DeviceArray<std::int32_t> nested_of_cell, nested_cell_start;  ///< empty where no cell is crowded
  DeviceArray<NestedGrid> nested;
  GridView view() const {
    return {shape,           cell_start.data,
            sorted_ids.data, sorted_points.data,
            run_end.data,    nested.count ? nested_of_cell.data : nullptr,
            nested.data,     nested_cell_start.data};
  }
};

/** The grid of `shape` over d_points (m x 3, device); ids are row numbers of d_points. */
DeviceGrid buildGrid(const float* d_points, std::int32_t m, const GridShape& shape);

/** How a search's answers are written: queries (num_queries x 3, device), optionally visited in
 *  `order` (num_queries indices, device, e.g. the grid's sorted ids, so that a warp's queries read
 *  the same cells; nullptr: 0 .. num_queries - 1), grid ids mapped through id_map (device, or
 *  nullptr for none) before they are stored. */
struct DeviceQueries {
  const float* points = nullptr;
  std::int32_t count = 0;
  const std::int32_t* order = nullptr;
  const std::int32_t* id_map = nullptr;
};

/** Each query's `row` nearest grid points, nearest first, into d_out (count x row, device). */
void nearestOnDevice(const GridView& grid, const DeviceQueries& queries, int row, std::int32_t* d_out);

/** Each query's number of grid points closer than the radius, at most `cap` (0: no cap), into
 *  d_counts (count entries, device); returns the largest. */
std::int64_t countWithinOnDevice(const GridView& grid, const DeviceQueries& queries, float radius, float radius2,
                                 int cap, std::int64_t* d_counts);

/** Each query's nearest (d_offsets[q + 1] - d_offsets[q]) grid points closer than the radius,
 *  nearest first, into d_indices from d_offsets[q]; largest: the largest row (<= kMaxNeighborhood). */
void fillWithinOnDevice(const GridView& grid, const DeviceQueries& queries, float radius, float radius2,
                        const std::int64_t* d_offsets, std::int64_t largest, std::int32_t* d_indices);

/** Iteration 0 on the device: normals (M x 3), curvature (M), activity (M), the iterations'
 *  neighbourhoods (offsets M + 1, indices) and, from initialWeightsOnDevice, their initial weights. */
struct DeviceIterationZero {
  DeviceArray<float> normals, curvature;
  DeviceArray<std::uint8_t> active;
  DeviceArray<std::int64_t> offsets;
  DeviceArray<std::int32_t> indices;
  DeviceArray<float> weights;  ///< empty until initialWeightsOnDevice
  std::int64_t largest = 0;    ///< the largest neighbourhood of the iterations
};

/** PCA per point over its neighbourhood (d_offsets: m + 1, d_indices, device), then the
 *  neighbourhoods of the points with a normal, by the rules of iteration_zero.cpp. */
DeviceIterationZero iterationZeroOnDevice(const float* d_points, std::int32_t m, const std::int64_t* d_offsets,
                                          const std::int32_t* d_indices);

/** zero.weights: 1 / (K_i - 1) for each entry of point i's neighbourhood (m points). */
void initialWeightsOnDevice(DeviceIterationZero& zero, std::int32_t m);

/** The graph the iterations read, on the device. */
struct DeviceGraph {
  const float* points;  ///< M x 3
  std::size_t num_points;
  float edge_scale;
  const float* edge_scales;     ///< M or nullptr: each point's s (the local rule), read instead
  const std::int64_t* offsets;  ///< M + 1
  const std::int32_t* indices;
  std::size_t num_edges;       ///< entries of indices
  const std::uint8_t* active;  ///< M
  std::int64_t largest;        ///< the largest neighbourhood (<= kMaxNeighborhood)
};

/** `iterations` DISE iterations on device state updated in place: normals (M x 3, with one more
 *  M x 3 buffer while they run), weights (one per entry, no second copy), curvature (M). settled: M flags (zeroed) for
 * the adaptive mode with settle_cos, or nullptr. after_each(it, d_normals) after iteration it (1 .. L) with that
 * iteration's normals on the device; false stops (returns false). */
bool iterateOnDevice(const float* d_parameters, const DeviceGraph& graph, int iterations, float* d_normals,
                     float* d_weights, float* d_curvature, std::uint8_t* d_settled, float settle_cos,
                     const std::function<bool(int, const float*)>& after_each);

}  // namespace cuda
}  // namespace pcl_dise
