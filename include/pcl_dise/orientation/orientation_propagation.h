#pragma once
// Consistent normal orientation by propagation along a minimum spanning tree (Hoppe et al. 1992),
// on plain arrays: any cloud of unoriented normals, DISE's or not. pcl::ConsistentNormalOrientation
// (consistent_normal_orientation.h) is the PCL face of it; docs/orientation.md tells the method.
#include <array>
#include <cstddef>
#include <cstdint>

#include "pcl_dise/core/neighborhoods.h"

namespace pcl_dise {

/** How orientNormals orients. */
struct OrientationOptions {
  /** Propagation graph: each point's `neighbors` nearest points. Keep it smaller than the estimation
   *  neighbourhood: a small graph has fewer edges that reach the other side of a thin sheet. */
  int neighbors = 10;
  /** Seeding of every connected part of the graph, first rule that applies: the part holding
   *  `seed_index` keeps that point's normal as given; with `has_viewpoint`, the part's point
   *  nearest the viewpoint faces it; otherwise the part's topmost point (largest z) faces +z. */
  std::int64_t seed_index = -1;
  bool has_viewpoint = false;                     ///< whether `viewpoint` seeds the parts
  std::array<float, 3> viewpoint{0.f, 0.f, 0.f};  ///< x, y, z in the points' frame
  /** The cloud samples closed shapes (solids, each part's surface closed): after the tree and the
   *  seeding, each point takes the side an outside grid shows it (outside_grid.h: the empty space
   *  connected to the border), which holds under noise near the point spacing; where no grid
   *  resolves the walls, and on the smooth patches a grid leaves unsure, a ray-parity vote flips the
   *  patches that point into their shape; where noise rules that out and no grid resolves the
   *  walls, each point's side comes from the middle of its wall (docs/orientation.md, steps 7 to
   *  9). Leave it off for scans and other open surfaces: there the outside surrounds the surface
   *  and rays escape on one side, and the votes would flip some parts and not others. */
  bool closed = false;
  /** OpenMP threads for the graph, the grid's votes and the rays (<= 0: all). */
  int threads = 0;
};

/** What orientNormals did. */
struct OrientationReport {
  std::size_t oriented = 0;        ///< points with a finite position and normal: oriented
  std::size_t without_normal = 0;  ///< points with a non-finite position or normal: left as they were
  std::size_t flipped = 0;         ///< oriented normals whose sign changed
  std::size_t parts = 0;           ///< connected parts of the graph, each seeded on its own
  std::size_t isolated = 0;        ///< parts of one point: oriented by the seed rule alone
  std::size_t sheet_crossings =
      0;  ///< tree edges through the other side of a sheet (no other path joined the two sides)
  std::size_t parity_flipped = 0;  ///< points of smooth patches flipped by the ray-parity vote
  /** closed, where ray parity runs: points whose side was still unsure (confidence below
   *  0.5) flipped by the winding number of the sure points nearby (step 10). */
  std::size_t winding_flipped = 0;
  /** closed: whether an outside grid enclosed a volume and chose the sides. */
  bool outside_grid = false;
  /** closed: whether ray parity ran (not under noise near the spacing): without an outside grid on
   *  every smooth patch, with one where it left patches unsure. */
  bool parity_checked = false;
  /** closed, with neither: whether each point's side came from the middle of its wall (the centroid
   *  of its 64 nearest points; thin walls under noise near the spacing, where the neighbourhoods
   *  show a wall's two faces). False there too where they show one face: the tree's sides stay. */
  bool wall_middles = false;
  float grid_cell = 0.f;         ///< the outside grid's cell (0 where it was not used)
  std::size_t grid_flipped = 0;  ///< points flipped by the outside grid's (or the wall middles') votes
  /** Points whose side the outside grid's vote could not decide (no votes, or no three-quarter
   *  majority in their patch): they keep the tree's sign, and are where the result is least sure. */
  std::size_t undecided = 0;
  /** Oriented points whose confidence (orientNormals' `confidence`) is below 0.5, undecided ones
   *  included: where a reconstruction or a user should trust the side least. */
  std::size_t low_confidence = 0;
};

/** Orients `normals` consistently, in place.
 *  points [in] N×3 row-major; normals [in,out] N×3 row-major, unit length or not (only signs change);
 *  confidence [out] N values or nullptr: how sure each point's side is, in [0, 1] (NaN for a point
 *  without a normal). With an outside grid (closed): the margin of the point's vote among its
 *  aligned graph neighbours' votes (1: each has a walk that alone reaches the outside on that side;
 *  a nearer exit or, under noise that rules out ray parity, a nearer inside counts half, step 7),
 *  half its smooth patch's margin where it had no vote of its own, 0 where nothing decided
 *  (undecided); otherwise |agreement| of the tree edge that gave the point its side (1 at a seed;
 *  low where neighbouring normals barely agree, e.g. across a thin wall or under noise).
 *  known [in] neighbourhoods of these points found before (the estimation's; nullptr or rows
 *  nullptr: none): the graph and the wall middles read a point's nearest points from its row where
 *  the row holds enough of the points oriented, and search for the others (all of them where a
 *  point oriented has no row or an empty one: the rows may leave it out). The result is the same,
 *  up to neighbours whose order rounding decides (the estimation measures in its own frame).
 *  A point with a non-finite coordinate or normal is left as it is and counted in without_normal.
 *  Throws std::invalid_argument for neighbors < 1, a seed_index outside [-1, N), or known rows
 *  that name a point outside [0, N) or an entry outside their rows. */
OrientationReport orientNormals(const float* points, float* normals, std::size_t num_points,
                                const OrientationOptions& options = {}, float* confidence = nullptr,
                                const KnownNeighborhoods* known = nullptr);

}  // namespace pcl_dise
