#pragma once
// bench_drop_in's cases (apps/bench/bench_drop_in.cpp): pcl::DeepIterativeNormalEstimation in the
// calls where PCL's own usage defines the cost, timed side by side with pcl::NormalEstimation (its
// default search) in one run:
//   - a few points over a large search surface: the 397 points of bun0 over a 640 x 480
//     organized surface, padded with zeros (a driver's invalid pixels) or all distinct;
//   - 100 points of a 1M-point cloud by setIndices;
//   - 1M points of which 1%, 10% or 90% coincide (stacked at one position) or lie within 1e-5 of
//     one position (near-coincident), against 1M distinct.
// Each figure is the median of the repeats' whole compute() calls on a fresh estimator (the search
// structure and the edge scale included), PCL's and ours in turns; the targets are
// docs/benchmarks.md's ("Drop-in costs").
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace pcl_dise {
namespace bench {

/** One case: its seconds, its target (DISE's seconds over the reference's; NaN: none) and how many
 *  of its outputs have a normal. */
struct DropInRow {
  std::string name;
  double pcl_seconds = NAN, dise_seconds = NAN, reference_seconds = NAN;  ///< reference: what the target divides by
  double target = NAN;
  std::size_t with_normal = 0, outputs = 0;
  /** Within its target (or without one). */
  bool passed() const { return !(dise_seconds / reference_seconds > target); }
};

/** What to run. */
struct DropInOptions {
  std::string bunny_path = "data/clouds/bun0.pcd";   ///< the 397 points over the surface
  int repeats = 3;                                   ///< each figure the median of this many calls
  std::size_t large = 1000000;                       ///< the large clouds' points (targets stated at 1M)
  std::string cases = "surface,indices,coincident";  ///< the groups of cases, comma-separated
};

/** \brief Runs the cases of `options.cases`.
 *  \throws std::runtime_error where the bunny cannot be read */
std::vector<DropInRow> runDropInCases(const DropInOptions& options);

/** \brief Prints one line per row and the verdict, writes `json_path` (where not empty).
 *  \return 0 where every target is met, else 1 */
int reportDropIn(const std::vector<DropInRow>& rows, int repeats, const std::string& json_path);

}  // namespace bench
}  // namespace pcl_dise
