#pragma once
// The part of a cloud that some of its points' DISE normals read: iteration L at a point reads
// iteration L - 1 at its neighbours, down to the PCA of the points L hops out, whose fits read
// the positions of the points L + 1 hops out. Estimating that part alone gives those points the
// very normals (the same bytes) that estimating the whole cloud gives them.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "pcl_dise/core/neighborhoods.h"

namespace pcl_dise {

/** A receptive field as a forward pass's input (forward.h): its own nodes, their neighbourhoods
 *  and how deep each is read. */
struct ReceptiveField {
  std::vector<std::int32_t> nodes;           ///< the cloud's points it holds, ascending
  std::vector<float> points;                 ///< nodes x 3, their positions
  Neighborhoods neighborhoods;               ///< per node, indices into `nodes`; empty L + 1 hops out
  std::vector<std::uint8_t> last_iteration;  ///< per node: L - hops (0 from L hops out on)
  /// local index of each seed (seeds x 1), in the order given
  std::vector<std::int32_t> local_of_seed;
};

/** \brief Neighbourhoods of some of a cloud's points: row r of the result is the neighbourhood of
 *  nodes[r], as indices of the cloud's points. */
using NeighborhoodsOf = std::function<Neighborhoods(const std::vector<std::int32_t>& nodes)>;

/** \brief The receptive field of `seeds` over `iterations` DISE iterations, searched hop by hop.
 *  \param[in] points the cloud, num_points x 3 row-major
 *  \param[in] num_points its size M
 *  \param[in] seeds the points whose normals are wanted, indices in [0, M) (repeats allowed)
 *  \param[in] iterations L >= 0
 *  \param[in] neighborhoods_of the cloud's neighbourhood rule, asked L + 1 times, each time for
 *    the points not asked before
 *  \return the field: every point within L + 1 hops of a seed
 *  \throws std::invalid_argument for a seed or neighbour out of range, or L > 255 */
ReceptiveField receptiveField(const float* points, std::size_t num_points, const std::vector<std::int32_t>& seeds,
                              int iterations, const NeighborhoodsOf& neighborhoods_of);

}  // namespace pcl_dise
