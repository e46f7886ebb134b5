#pragma once
// The consistent orientation's tuned rules: every threshold and size of docs/orientation.md's
// method in one struct, each with what it decides and, where it was tuned, on what. Every choice
// was made on the tuning set of docs/orientation.md ("Measured"); the variants tried and their
// figures are in experiments/ORIENTATION.md. Internal: read by the parts of src/orientation.
#include <cstddef>
#include <cstdint>
#include <limits>

namespace pcl_dise {
namespace detail {

// Edge costs are sorted by counting: 2^16 levels, and sheet edges after all others.
inline constexpr std::uint32_t kCostLevels = 1u << 16;

inline constexpr std::uint32_t kNoEdge = std::numeric_limits<std::uint32_t>::max();

struct GridTry {
  float cell;    // times the finest
  int dilation;  // cells
};

/** Every tuned threshold and size of the orientation, read by its parts as kRules.name. */
struct OrientationRules {
  // ---- The graph, the spanning tree and its sides -----------------------------
  // Two near-parallel normals (within 30 degrees, up to sign) belong to two layers, the two faces of a
  // thin wall or two surfaces facing each other, where each point lies off the other's tangent plane by
  // more than that point's layer tolerance (layerTolerance). Outward normals of two layers are
  // opposite, whatever the chord's slant: read as one slanted plane, a chord longer than the wall is
  // thick would join the faces with the same sign.
  float sheet_parallel = 0.866f;

  // Without that evidence, an edge between near-parallel normals whose chord leaves both tangent planes
  // by more than 30 degrees may cross a sheet, or may be noise: it joins the tree only where nothing
  // else does. (Sharp creases, whose normals differ more, keep their edges: the most symmetric of those
  // carry the sign across best.)
  float sheet_chord = 0.5f;

  // A side decided with less confidence than this is counted as low (OrientationReport::low_confidence).
  float low_confidence = 0.5f;

  // Per point, from its graph neighbours: the median |offset| along its normal (noise; near zero on a
  // clean flat part, also beside a thin wall whose far face holds fewer than half the neighbours),
  // the |offset| that 30% of them stay below (noise that the far face of a thin wall leaves alone
  // while it holds fewer than 70% of the neighbours), and the median distance to them (spacing).
  float own_layer_quantile = 0.3f;

  // How far off its tangent plane a point's graph neighbours may lie and still be on its own layer: a
  // margin over the noise plus a share of the spacing (curvature, and the kinks of a triangle mesh).
  float layer_margin = 5.f;

  float layer_spacing = 0.5f;

  // ---- Smooth patches and the votes that turn them ----------------------------
  // Smooth patches: points joined by graph edges whose normals, as oriented, agree within 20
  // degrees and whose chord lies within 20 degrees of both tangent planes, so that no patch spans a
  // crease or both faces of a wall. Returns each point's patch representative.
  float patch_parallel = 0.94f;

  float patch_chord = 0.34f;

  // A graph neighbour lends its outside-grid vote where its normal lies within 60 degrees of the line.
  float grid_aligned = 0.5f;

  // ---- Ray parity -------------------------------------------------------------
  // Ray parity. From a point of a closed surface, a ray on the outward side of its tangent plane
  // crosses an even number of further sheets, and the opposite ray an odd number. Each smooth patch of
  // at least parity_flips points sends rays from up to parity_rays of its points, in
  // parity_directions directions 35 degrees off the normal (so that they run along no face of an
  // axis-aligned shape) and their opposites; a ray pair votes where its two counts differ in parity,
  // a point as most of its pairs. A patch flips where at least parity_flips points and three quarters
  // of its votes say its normals point in (out, in a part whose side a seed point or a viewpoint
  // chose inwards). A cloud where fewer than half the points vote is taken
  // for an open surface, where parity means nothing, and left as the tree made it. The tree goes
  // wrong across walls about as thin as the spacing (a fin joined to its base through the fin); rays
  // see both faces of such a wall where they lie further apart than the depth a ray skips at its
  // start (half the spacing, and thrice the noise of the point's own layer).
  int parity_rays = 9;

  float parity_noise = 0.4f;

  int parity_flips = 3;

  int parity_directions = 4;

  float parity_cosine = 0.819f, parity_sine = 0.574f, parity_azimuth = 0.35f;

  // With an outside grid, the patches it leaves unsure: those where fewer than parity_unsure of the
  // points have a clear vote of their own (a walk that alone gets out). Judged on the tuning set
  // (oriented RMSE of its closed shapes, 100,000 / 15,000 points): 9.27 / 12.61 without, 9.16 /
  // 12.31 at a half, 9.15 / 12.01 at three quarters (kept), 9.13 / 11.83 on every patch, where a
  // noisy star at 15,000 points fell from 95.8% to 88.2% facing out.
  double parity_unsure = 0.75;

  // ---- The outside grid -------------------------------------------------------
  // The outside grid (outside_grid.h). Its band must be closed, or the outside floods the shape,
  // and thin, or it fills the concave parts near the surface and reads them as inside. Grids are tried
  // from fine to coarse (grid_tries), first with no dilation (noise near the spacing fills the band on
  // its own), then with one cell of it, then two. A grid counts where the volume enclosed is at least
  // grid_enclosed of the band's, and the one where most points vote is used: a band that leaks
  // somewhere (a part whose inside the outside floods) leaves that part's walks leaving both ways,
  // silent, while a grid that closes it gives them votes. The search stops at a grid where
  // grid_enough of the points vote. A smaller volume is a pocket the band closed between thin walls
  // (the gap of a hairpin: 0.8% of its band), whose faces it would turn inwards. Where fewer than half
  // the points vote the band may leak everywhere; such a grid (down to grid_fewest voting) is used
  // only where ray parity cannot run (usableGrid). The finest cell is the spacing 90% of the points
  // stay within, or the median offset of a point's neighbours from its tangent plane (about the
  // noise's deviation) times grid_noise.
  float grid_noise = 1.5f, grid_quantile = 0.9f;

  GridTry grid_tries[11] = {{0.75f, 0}, {1.f, 0},   {1.25f, 0}, {1.5f, 0}, {0.75f, 1}, {1.f, 1},
                            {1.5f, 1},  {2.25f, 1}, {3.4f, 1},  {1.f, 2},  {1.5f, 2}};

  double grid_enclosed = 0.05, grid_enough = 0.99, grid_fewest = 0.4;

  // At most 2^23 cells (8 MB; the cell grows to fit): building such a grid from 1M points takes about
  // 0.1 s here, 0.2 s with a dilation.
  std::size_t grid_cells = std::size_t(1) << 23;

  // A point's walk towards the outside: half-cell steps, up to 5 cells each way.
  int grid_steps = 10;

  // Grids are compared on every point up to grid_sample points, on every stride-th point of the
  // Morton order above (spread over the whole shape; at 1M points the comparisons took a fifth of the
  // orientation): a sample of 2^17 gives a grid's share of voting points within about 0.3%.
  std::size_t grid_sample = std::size_t(1) << 17;

  // ---- Wall middles -----------------------------------------------------------
  // Where neither an outside grid nor ray parity can tell the sides (walls thinner than the walks,
  // under noise near the spacing): the mid_neighbors nearest points of a point on a thin wall hold
  // both faces, so their centroid lies near the wall's middle, and the point lies on its own face's
  // side of it. Its vote: +-2 for the side of the centroid its normal points away from. As many
  // neighbours as the estimation's: judged on the tuning set's thin structures under noise 5e-2, 16,
  // 32 and 64 neighbours turned the hollow box 48% -> 80%, 86%, 88% facing out.
  // Where the neighbourhood holds one face only (a sheet thicker than its reach) the vote is the
  // noise's, so the votes are used only where the neighbourhoods show two faces: the offsets along
  // the normal from two faces of equal weight, noise sigma, are bimodal once the faces lie more than
  // 2 sigma apart, where their kurtosis falls below two_faces (2.5; one face: 3, a Gaussian). The
  // median over the cloud decides (a bent sheet under noise 5e-2, whose 64 nearest points reach one
  // face: 2.79, and the tree's 94.9% facing out kept; the hollow box: 2.34).
  std::size_t mid_neighbors = 64;

  float two_faces = 2.5f;

  // The wall middles of the points listed (queries: their positions, count x 3), mid_chunk points at a
  // time (16 MB of neighbourhoods at most).
  std::size_t mid_chunk = std::size_t(1) << 16;

  // The votes, or none where the median neighbourhood shows one face. Above mid_sample points the
  // median is read first on a sample (every n-th point in Morton order, spread over the shape): a
  // cloud whose sample shows one face skips the search of every point's neighbourhood (1M points:
  // about 1.4 s). Otherwise the median over all points decides, as below that size.
  std::size_t mid_sample = std::size_t(1) << 15;

  // ---- The winding number -----------------------------------------------------
  // Step 10, for closed shapes where ray parity runs (the noise below parity_noise of the spacing):
  // the points whose side is still unsure (confidence below low_confidence) read it from the winding
  // number of the sure points nearby. Each sure point is a small oriented disc (area: its spacing
  // squared); the solid angle the discs subtend, over 4 pi (the generalized winding number of
  // Jacobson et al. 2013, which GCNO and WNNC use to orient), is 1 inside a closed surface and 0
  // outside, so it drops across the surface where a normal points out: measured just below and just
  // above point i, at p -+ d n, a drop says n points out, a rise says in. Near a point the difference
  // is the discs nearby's (a surface r away adds about d / r to it), so its winding_neighbors nearest
  // points (the estimation's neighbourhood) stand for the whole surface, and the cost is theirs. d is
  // half the point's spacing: a part of another surface closer than d lies beyond the lower or upper
  // point and reads the wrong way. As with the other votes, a point turns only on a clear vote: its
  // discs' terms for one side outweigh the other's three to one (|drop| >= winding_clear of their
  // sum). Judged on the tuning set (oriented RMSE of its closed shapes, 100,000 / 15,000 points):
  // 9.15 / 12.01 without, 9.11 / 11.88 with; without the clear-vote rule 9.10 / 12.03; d with twice
  // the median noise added, or only where the noise stays under 0.3 of the spacing, or both, 9.11 /
  // 11.88 to 11.92.
  std::size_t winding_neighbors = 64;

  float winding_spacing = 0.5f;

  double winding_clear = 0.5;
};

inline constexpr OrientationRules kRules{};

}  // namespace detail
}  // namespace pcl_dise
