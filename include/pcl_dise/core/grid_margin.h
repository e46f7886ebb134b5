#pragma once
// How far float rounding can carry a point across a face of a uniform grid's cells: a point's cell
// is computed as floor((x - origin) / cell_size) in float, so a point near a face may sit in the
// next cell. A search may take a ball for covered by the cells it has visited only after cutting
// its radius by this margin. One rule for the CPU's GridSearch (grid_search.h) and the GPU's grid
// (src/backends/cuda/grid_knn.h).
#include "pcl_dise/core/eigen3x3.h"  // PCL_DISE_HOST_DEVICE

namespace pcl_dise {

/** \brief The rounding margin of a uniform grid.
 *  \param[in] cell_size the cells' side
 *  \param[in] largest_dim the number of cells along the grid's longest axis
 *  \param[in] largest_coordinate the largest |coordinate| of the grid's box (its corners)
 *  \return the length to take off a covered radius */
PCL_DISE_HOST_DEVICE float gridRoundingMargin(float cell_size, int largest_dim, double largest_coordinate) {
  constexpr double kFloatEpsilon = 1.1920928955078125e-7;  // FLT_EPSILON, usable in device code
  return static_cast<float>(1e-6 * double(cell_size) * (largest_dim + 1) + 8 * kFloatEpsilon * largest_coordinate);
}

}  // namespace pcl_dise
