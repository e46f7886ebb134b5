#pragma once
// Counts the sheets of a sampled surface that a ray crosses. Each point stands for a disc (a
// splat) in its tangent plane; the ray meets a disc where it meets the disc's plane within the
// disc's radius, and meetings at nearly the same depth are one sheet. On a closed surface a ray
// from a surface point crosses an even number of further sheets where it leaves towards the
// outside and an odd number where it enters: orientNormals (orientation_propagation.h) reads
// inside from outside by that parity.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace pcl_dise {

/** Which sheets of a sampled surface a ray crosses: each point a disc (splat) of its radius across
 *  its normal, the discs in a grid; the orientation's ray-parity vote (docs/orientation.md). */
class SplatRayCaster {
 public:
  /** Per-thread working memory of crossings(): reuse it ray after ray. */
  struct Scratch {
    std::vector<float> depths;        ///< the crossings' distances along the ray
    std::vector<std::uint32_t> seen;  ///< per point: the last ray that tested it
    std::uint32_t ray = 0;            ///< the current ray's number
  };

  /** points [in] N×3 row-major; normals [in] N×3 unit, either sign; radius [in] N disc radii.
   *  Copies what it needs. Non-finite points and radii <= 0 are left out. The grid's cell is
   *  twice the radius 90% of the discs stay within, grown until it has at most max_cells cells; a radius above half a
   *  cell is cut to it. */
  SplatRayCaster(const float* points, const float* normals, const float* radius, std::size_t num_points,
                 std::size_t max_cells = std::size_t(1) << 22);

  /** Sheets crossed by the ray origin + t direction (direction unit) for t > start, meetings whose
   *  depths differ by at most merge counted as one sheet. Discs the ray meets at a grazing angle
   *  (|direction . normal| < 0.05) are passed beside, not crossed. */
  int crossings(const float origin[3], const float direction[3], float start, float merge, Scratch& scratch) const;

  /** The same count by testing every disc: for tests. */
  int crossingsByTestingAll(const float origin[3], const float direction[3], float start, float merge) const;

 private:
  /// Adds the depth where the ray meets disc i, if it does beyond start, to depths.
  void meet(std::size_t i, const float origin[3], const float direction[3], float start,
            std::vector<float>& depths) const;
  static int sheets(std::vector<float>& depths, float merge);

  std::vector<float> xyz_, normal_, radius_;  ///< the discs kept
  float lower_[3] = {0, 0, 0}, cell_ = 1;
  int dims_[3] = {1, 1, 1};
  std::vector<std::uint32_t> cell_start_, cell_points_;  ///< points of cell c: cell_points_[cell_start_[c] ...]
};

}  // namespace pcl_dise
