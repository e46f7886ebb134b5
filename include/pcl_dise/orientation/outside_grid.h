#pragma once
// The outside of the closed surfaces a cloud samples, on a voxel grid. Cells within `dilation`
// cells of a point form a band that stands for the surface; the empty cells reachable from the
// grid's border without crossing the band are outside; the band and the volume it encloses are not.
// orientNormals (orientation_propagation.h) reads a normal's side from it: from a point of a closed
// surface, a step along the outward normal leaves the band for the outside sooner than a step along
// the inward one. Built from the positions alone, the grid carries no error of the normals, and
// noise only has to stay within the band (docs/orientation.md, "The outside grid").
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pcl_dise {

/** The outside of a cloud's closed surfaces on a voxel grid: the points' band of cells, the empty
 *  space flooded from the grid's border as the outside, and each point's side read by walks along
 *  its normal (docs/orientation.md, step 7). */
class OutsideGrid {
 public:
  /** points [in] N×3 row-major (non-finite points are left out); cell [in] the grid's cell, finite
   *  and > 0 (grown until the grid has at most max_cells cells); dilation [in] band cells added
   *  around each occupied cell, >= 0 (closes gaps of the sampling up to 2 × dilation cells wide).
   *  Throws std::invalid_argument for a cell or dilation out of range. */
  OutsideGrid(const float* points, std::size_t num_points, float cell, int dilation = 1,
              std::size_t max_cells = std::size_t(1) << 24);

  /** The cell used (the one asked for, or grown to respect max_cells). */
  float cell() const { return cell_; }
  /** Cells neither outside nor in the band: the volume the surfaces enclose. 0 where the band has a
   *  hole wider than the dilation closes, or where the cloud samples no closed surface. */
  std::size_t enclosedCells() const { return enclosed_; }
  /** Cells of the band: the occupied cells and their dilation. */
  std::size_t bandCells() const { return band_; }
  /** Whether p lies in an outside cell; every point beyond the grid is outside. */
  bool outside(const float p[3]) const;
  /** Whether p lies in the volume the band encloses (neither outside nor band); false beyond the
   *  grid and for a non-finite p. */
  bool enclosed(const float p[3]) const;

 private:
  /** The cell p lies in, x fastest; -1 beyond the grid or for a non-finite p. */
  std::int64_t cellOf(const float p[3]) const;

  float lower_[3] = {0, 0, 0}, cell_ = 1;
  std::int64_t dims_[3] = {1, 1, 1};
  std::size_t enclosed_ = 0, band_ = 0;
  std::vector<std::uint8_t> outside_;  ///< per cell, x fastest
};

}  // namespace pcl_dise
