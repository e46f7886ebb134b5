#pragma once
// The forward pass tile by tile, exactly: every tile loads its points plus a halo wide enough that
// the neighbourhoods its points read, L + 1 hops out, are the whole cloud's, and runs the forward
// pass on that alone with the whole cloud's edge scale. The normals are the whole cloud's bit for
// bit; memory follows the tile, not the cloud. This is the driver an out-of-core or distributed
// run builds on: a tile needs only the points of its box grown by the halo.
#include <cstddef>
#include <vector>

#include "pcl_dise/forward.h"

namespace pcl_dise {

struct TiledForwardOptions {
  std::size_t neighbors = 65;         ///< k + 1: each point's k nearest plus itself
  int iterations = 4;                 ///< L
  int threads = 0;                    ///< 0: all hardware threads
  std::size_t tile_points = 1 << 20;  ///< points per tile, about (tiles are boxes of a grid)
};

struct TiledForwardReport {
  std::size_t tiles = 0;         ///< tiles that held points
  std::size_t largest_load = 0;  ///< most points one tile loaded (its own and its halo's)
  std::size_t halo_growths = 0;  ///< times a halo had to grow to prove a tile exact
  float edge_scale = 1.f;        ///< the whole cloud's, shared by every tile
};

/** Normals (num_points x 3, NaN where none) and curvature (num_points) of `points`
 *  (num_points x 3 row-major, finite, in a local frame) with each point's `neighbors` nearest
 *  points (itself included, nearest first, ties by index: nearestNeighborGraph) and the edge
 *  scale of edgeScale(points, num_points): the same values as runForward on the whole cloud.
 *  Throws std::invalid_argument for a non-finite point or bad options. */
TiledForwardReport runTiledForward(const Model& model, const float* points, std::size_t num_points,
                                   const TiledForwardOptions& options, std::vector<float>& normals,
                                   std::vector<float>& curvature, Backend backend = Backend::Native);

}  // namespace pcl_dise
