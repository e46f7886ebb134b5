#pragma once
// The forward pass tile by tile, exactly: every tile loads its points plus a halo wide enough that
// the neighbourhoods of the points within L hops of its own are the whole cloud's (what L
// iterations read: iteration L - h at h hops out, down to the PCA L hops out), and runs the forward
// pass on that alone with the whole cloud's edge scale. The normals are the whole cloud's bit for
// bit; memory follows the tile, not the cloud. The tiles come from a TiledCloud (tiled_cloud.h):
// in memory, or on disk for clouds larger than memory (disk_tiled_cloud.h).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "pcl_dise/core/exact_sum.h"
#include "pcl_dise/core/forward.h"
#include "pcl_dise/core/progress.h"
#include "pcl_dise/core/tiled_cloud.h"

namespace pcl_dise {

/** How runTiledForward cuts and runs the cloud. */
struct TiledForwardOptions {
  std::size_t neighbors = 65;              ///< k + 1: each point's k nearest plus itself (radius == 0)
  float radius = 0;                        ///< > 0: every point within radius instead of k nearest
  std::size_t max_neighbors = 0;           ///< with radius: keep the nearest this many (0: all)
  int iterations = 4;                      ///< L
  int threads = 0;                         ///< 0: all hardware threads
  Precision precision = Precision::Float;  ///< the native network's arithmetic (ForwardOptions::precision)
  std::size_t tile_points = 1 << 20;       ///< most points a tile holds (its halo not counted)
  std::size_t max_load = 0;                ///< most points a tile may load with its halo (0: no limit); a
                                           ///< tile that needs more runs in halves, halved again as needed
  /// Several processes sharing one cloud (MPI): this one runs the tiles t with t % parts == part.
  int part = 0;   ///< this process's number, 0..parts-1
  int parts = 1;  ///< processes
  /// With parts > 1: replaces a sum over this process's own tiles' points by the sum over every
  /// process (ExactSum::state() added up, as MPI_Allreduce does). Called twice, in every
  /// process: the edge-scale terms, then the neighbour entries they read.
  std::function<void(ExactSum& sum)> share_terms;
  /// The share of this process's tiles done (progress.h): the edge-scale pass the first tenth,
  /// the forward passes the rest, within tiles as runForward tells it. false stops: Cancelled.
  ProgressCallback progress;
};

/** What runTiledForward did. */
struct TiledForwardReport {
  std::size_t tiles = 0;         ///< tiles that held points
  std::size_t largest_load = 0;  ///< most points one tile loaded (its own and its halo's)
  std::size_t halo_growths = 0;  ///< times a halo had to grow to prove a tile exact
  std::size_t split_parts = 0;   ///< times a tile (or a part) was halved: its halo outgrew max_load
  float edge_scale = 1.f;        ///< the whole cloud's, shared by every tile
};

/** Receives each point's results once: its global index, normal (3 floats, NaN where none) and curvature. */
using TiledResultSink = std::function<void(std::uint64_t global, const float* normal, float curvature)>;

/** The forward pass over `cloud` (finite points in one local frame), tile by tile (this part's tiles): each point's
 *  neighbourhood is its k nearest (options.neighbors, itself included) or those within
 *  options.radius, nearest first and ties by global index, and the edge scale that of
 *  edgeScale(points, num_points) over the whole cloud: the values runForward gives on the whole
 *  cloud (with nearestNeighborGraph or GridSearch::withinRadius). With iterations > 0, points
 *  at one position are one point, as pcl::DeepIterativeNormalEstimation makes them: the first by
 *  global index stands for its twins, which receive its results. A tile whose halo would take its
 *  load over options.max_load runs in halves of its box (halved again as needed). Throws
 *  std::invalid_argument for bad options and std::runtime_error where even 64 points need more
 *  than options.max_load with their halo. */
TiledForwardReport runTiledForward(const Model& model, const TiledCloud& cloud, const TiledForwardOptions& options,
                                   const TiledResultSink& sink, Backend backend = Backend::Native);

/** The same over points held in memory: normals (num_points x 3) and curvature (num_points).
 *  points: num_points x 3 row-major; throws std::invalid_argument for a non-finite one. */
TiledForwardReport runTiledForward(const Model& model, const float* points, std::size_t num_points,
                                   const TiledForwardOptions& options, std::vector<float>& normals,
                                   std::vector<float>& curvature, Backend backend = Backend::Native);

}  // namespace pcl_dise
