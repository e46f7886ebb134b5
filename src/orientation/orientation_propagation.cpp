#include "pcl_dise/orientation/orientation_propagation.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "orientation_parts.h"
#include "pcl_dise/core/threads.h"
#include "vector3.h"

namespace pcl_dise {

using namespace detail;  // the parts (orientation_parts.h)

OrientationReport orientNormals(const float* points, float* normals, std::size_t num_points,
                                const OrientationOptions& options, float* confidence,
                                const KnownNeighborhoods* known_neighborhoods) {
  if (options.neighbors < 1)
    throw std::invalid_argument("orientNormals: neighbors must be at least 1, got " +
                                std::to_string(options.neighbors));
  if (options.seed_index < -1 || options.seed_index >= static_cast<std::int64_t>(num_points))
    throw std::invalid_argument("orientNormals: seed index " + std::to_string(options.seed_index) +
                                " outside a cloud of " + std::to_string(num_points) + " points");
  FinitePoints finite = finitePoints(points, normals, num_points);
  OrientationReport report;
  const std::size_t m = finite.size();
  if (confidence) std::fill(confidence, confidence + num_points, std::numeric_limits<float>::quiet_NaN());
  report.oriented = m;
  report.without_normal = num_points - m;
  if (m == 0) return report;

  const std::size_t stride = std::min<std::size_t>(options.neighbors + 1, m);
  if (m * stride >= kNoEdge) throw std::length_error("orientNormals: too many graph edges; lower neighbors");
  const int threads = detail::resolveThreads(options.threads);
  const KnownRows known(known_neighborhoods, finite, num_points);
  std::optional<GridSearch> graph_search;
  const Neighborhoods graph = nearestRows(finite, known, nullptr, 0, m, stride, graph_search, threads);
  const LocalScale scale = localScale(finite, graph, stride, threads);
  const std::vector<float> tolerance = layerTolerance(scale);
  const Forest forest = spanningForest(m, graph, stride, edgeKeys(finite, tolerance, graph, stride, threads));
  report.sheet_crossings = forest.through_sheet;

  std::int32_t user_seed = -1;
  if (options.seed_index >= 0) {
    const auto found = std::find(finite.index.begin(), finite.index.end(), options.seed_index);
    if (found != finite.index.end()) user_seed = static_cast<std::int32_t>(found - finite.index.begin());
  }

  std::vector<float> sure(m, 0.f);  // each point's confidence in its side
  const std::vector<std::int32_t> parts = propagate(finite, tolerance, forest, user_seed, sure, threads);
  report.parts = parts.size();
  const std::vector<char> flip = flipsByCapVote(finite, forest, options);
  const std::int32_t user_part = user_seed >= 0 ? forest.part[user_seed] : -1;
  for (std::size_t i = 0; i < m; ++i) {
    const std::int32_t part = forest.part[i];
    report.isolated += forest.adjacency.size(i) == 0;
    if (part != user_part && flip[part]) negate(&finite.normal[3 * i]);
  }
  if (options.closed) {
    // Ray parity reads discs in the tangent planes. Where the noise (the median offset of a point's
    // graph neighbours from its tangent plane) reaches kRules.parity_noise of the spacing (their median
    // distance) the discs no longer form sheets and its votes flip patches at random: measured
    // 0.28-0.35 on the validation set's thin walls at noise 1e-2, where parity mends them, and 0.45
    // at noise 5e-2, where it turns them half inside out.
    const bool parity_runs = quantile(scale.noise, 0.5f) < kRules.parity_noise * quantile(scale.spacing, 0.5f);
    const GridVotes grid = outsideVotes(finite, scale, !parity_runs, threads);
    report.outside_grid = usableGrid(grid, parity_runs);
    const VoteContext context{finite,  graph,  stride, forest.part, user_seed, options.has_viewpoint,
                              threads, report, sure};
    if (report.outside_grid) {
      report.grid_cell = grid.cell;
      orientByVotes(context, grid.vote);
      if (parity_runs) flipPatchesByParity(context, scale, &grid.vote);
    } else if (parity_runs) {
      flipPatchesByParity(context, scale);
    } else {
      const std::vector<signed char> vote = wallMiddleVotes(finite, known, threads);
      report.wall_middles = !vote.empty();
      if (report.wall_middles) orientByVotes(context, vote);
    }
    if (parity_runs) report.winding_flipped = flipUnsureByWinding(finite, scale, known, user_seed, threads, sure);
  }

  for (std::size_t i = 0; i < m; ++i) {
    report.low_confidence += sure[i] < kRules.low_confidence;
    if (confidence) confidence[finite.index[i]] = sure[i];
    float* n = normals + 3 * finite.index[i];
    if (dot(n, &finite.normal[3 * i]) >= 0.f) continue;
    negate(n);
    ++report.flipped;
  }
  return report;
}

}  // namespace pcl_dise
