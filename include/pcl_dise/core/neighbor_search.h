#pragma once
// A neighbourhood search the forward pass runs itself (ForwardInput::search): on the device with
// the CUDA backend, by GridSearch on the CPU otherwise. The feature's default search and the
// forward pass's callers describe their search here instead of handing over index arrays.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "pcl_dise/core/grid_search.h"
#include "pcl_dise/core/neighborhoods.h"

namespace pcl_dise {

/** Which neighbourhoods to find, over the points of ForwardInput (M x 3). */
struct NeighborSearch {
  std::size_t k = 0;              ///< > 0: each point's k nearest, the point itself included
  float radius = 0;               ///< k == 0: the points closer than radius (squared distance < radius^2)
  std::size_t max_neighbors = 0;  ///< radius search: keep the nearest this many (0: all)
  /// The points searched among: the first num_searched points (0: all M). The others only ask
  /// (query points that are not part of the surface).
  std::size_t num_searched = 0;
  /// num_searched indices, a permutation of 0 .. num_searched - 1: where distances tie, the point
  /// listed first comes first (the order of the user's cloud). nullptr: the smaller index first.
  const std::int32_t* tie_order = nullptr;
  /// M flags: the points whose neighbourhoods are wanted (nullptr: all); the others' are empty.
  const std::uint8_t* queried = nullptr;
};

/** \brief The neighbourhoods of `search` on the CPU (GridSearch, exact): each nearest first,
 *  ties in distance as search.tie_order says.
 *  \param[in] points M x 3 row-major, finite
 *  \param[in] num_points M
 *  \param[in] search what to find (k or radius > 0)
 *  \param[in] threads OpenMP threads (<= 0: all)
 *  \return N(i) for i in 0 .. M - 1, indices of searched points
 *  \throws std::invalid_argument for a search without k or radius, or num_searched > M */
Neighborhoods searchNeighborhoods(const float* points, std::size_t num_points, const NeighborSearch& search,
                                  int threads = 0);

/** \brief The index of a NeighborSearch, built once and asked for the neighbourhoods of any of
 *  its points, in as many rounds as the caller needs (receptive_field.h asks hop by hop). Its rows
 *  are those searchNeighborhoods gives. */
class NeighborSearchIndex {
 public:
  /** \param[in] points M x 3 row-major, finite; must outlive the index
   *  \param[in] num_points M
   *  \param[in] search what to find (its `queried` is not read; tie_order must outlive the index)
   *  \param[in] threads OpenMP threads the index is built on (<= 0: all)
   *  \throws std::invalid_argument as checkSearch */
  NeighborSearchIndex(const float* points, std::size_t num_points, const NeighborSearch& search, int threads = 0);
  /** \brief The neighbourhoods of some points.
   *  \param[in] nodes point indices in [0, M), or nullptr: every point in order
   *  \param[in] count the number of nodes (ignored for nullptr)
   *  \param[in] threads OpenMP threads (<= 0: all)
   *  \param[in] nearest > 0: each node's `nearest` nearest instead (a k-nearest index only: the
   *  edge scale's 17 from the index of the search, as they would be from an index of their own)
   *  \return row r: the neighbourhood of nodes[r], indices of searched points */
  Neighborhoods rowsOf(const std::int32_t* nodes, std::size_t count, int threads = 0, std::size_t nearest = 0) const;
  /** \brief The edge scale (edge_scale.h) of the searched points, their 17 nearest found by this
   *  k-nearest index as rowsOf(..., 17) finds them and summed as they are found: what edgeScale
   *  gives over those rows, with no rows kept.
   *  \param[in] threads OpenMP threads (<= 0: all)
   *  \throws std::invalid_argument for a radius index */
  float edgeScale(int threads = 0) const;

 private:
  const float* points_;
  std::size_t num_points_;
  NeighborSearch search_;
  GridSearch grid_;
};

/** \brief The local rule's edge scales (edge_scale.h, localEdgeScales) of every point of a search:
 *  each point's 17 nearest searched points, ties as search.tie_order says, and theirs.
 *  \param[in] points M x 3 row-major, finite
 *  \param[in] num_points M
 *  \param[in] search the search whose points are searched among (num_searched, tie_order; its k,
 *    radius and queried are not read)
 *  \param[in] threads OpenMP threads (<= 0: all)
 *  \return M scales, the global s of the same terms where a point's statistic is zero */
std::vector<float> searchLocalEdgeScales(const float* points, std::size_t num_points, const NeighborSearch& search,
                                         int threads = 0);

/** \brief The number of points searched among: search.num_searched, or num_points where 0. */
inline std::size_t searchedCount(const NeighborSearch& search, std::size_t num_points) {
  return search.num_searched > 0 ? search.num_searched : num_points;
}

/** \brief Checks a search before it runs, on the CPU or a device alike.
 *  \param[in] search what to find
 *  \param[in] num_points M, the points it is run over
 *  \throws std::invalid_argument for a search without k or a positive finite radius, or one
 *  among more points than there are */
void checkSearch(const NeighborSearch& search, std::size_t num_points);

}  // namespace pcl_dise
